// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

interface IMintable {
    function mint(address to, uint256 value) external;
}

/// A POAP-like minter for tests: one call makes another contract (the token) emit `Transfer` and
/// this one emit `EventToken`, so a call handler must look past its own contract's logs.
contract TestMinter {
    uint256 public lastTokenId;

    event EventToken(uint256 indexed eventId, uint256 tokenId);

    function mintToken(address token, uint256 eventId, address to, uint256 value) external returns (uint256) {
        IMintable(token).mint(to, value);
        uint256 tokenId = ++lastTokenId;
        emit EventToken(eventId, tokenId);
        return tokenId;
    }
}
