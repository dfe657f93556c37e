// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

/// Snapshot's DelegateRegistry events for tests (SubQuery's Multi-Chain/snapshot starter): each call emits its event
/// for the sender with the values given; nothing is kept, so a delegation never set can be cleared.
contract TestDelegates {
    event SetDelegate(address indexed delegator, bytes32 indexed id, address indexed delegate);
    event ClearDelegate(address indexed delegator, bytes32 indexed id, address indexed delegate);

    function setDelegate(bytes32 id, address delegate) external {
        emit SetDelegate(msg.sender, id, delegate);
    }

    function clearDelegate(bytes32 id, address delegate) external {
        emit ClearDelegate(msg.sender, id, delegate);
    }
}
