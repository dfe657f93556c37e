// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

/// Gnosis Safe stand-ins for tests (SubQuery's Multi-Chain/safe starter): a proxy factory's ProxyCreation for an
/// address given, and a safe's SignMsg with its owners.
contract TestSafeFactory {
    event ProxyCreation(address proxy);

    function createProxy(address proxy) external {
        emit ProxyCreation(proxy);
    }
}

contract TestSafe {
    event SignMsg(bytes32 indexed msgHash);

    function getOwners() external view returns (address[] memory owners) {
        owners = new address[](1);
        owners[0] = msg.sender;
    }

    function signMessage(bytes32 msgHash) external {
        emit SignMsg(msgHash);
    }
}
