// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

/// A gravatar registry for tests, with the events and calls of the Gravity contract that SubQuery's
/// ethereum-gravatar starter indexes (NewGravatar, UpdatedGravatar: none of their fields indexed, so the
/// strings are in the log data). One gravatar per owner; ids count from 0.
contract TestGravity {
    struct Gravatar {
        address owner;
        string displayName;
        string imageUrl;
    }

    Gravatar[] public gravatars;
    mapping(uint256 => address) public gravatarToOwner;
    mapping(address => uint256) public ownerToGravatar;
    mapping(address => bool) private hasGravatar;

    event NewGravatar(uint256 id, address owner, string displayName, string imageUrl);
    event UpdatedGravatar(uint256 id, address owner, string displayName, string imageUrl);

    function createGravatar(string calldata _displayName, string calldata _imageUrl) external {
        require(!hasGravatar[msg.sender], "one gravatar per owner");
        uint256 id = gravatars.length;
        gravatars.push(Gravatar(msg.sender, _displayName, _imageUrl));
        gravatarToOwner[id] = msg.sender;
        ownerToGravatar[msg.sender] = id;
        hasGravatar[msg.sender] = true;
        emit NewGravatar(id, msg.sender, _displayName, _imageUrl);
    }

    function updateGravatarName(string calldata _displayName) external {
        require(hasGravatar[msg.sender], "no gravatar");
        uint256 id = ownerToGravatar[msg.sender];
        gravatars[id].displayName = _displayName;
        emit UpdatedGravatar(id, msg.sender, _displayName, gravatars[id].imageUrl);
    }

    function updateGravatarImage(string calldata _imageUrl) external {
        require(hasGravatar[msg.sender], "no gravatar");
        uint256 id = ownerToGravatar[msg.sender];
        gravatars[id].imageUrl = _imageUrl;
        emit UpdatedGravatar(id, msg.sender, gravatars[id].displayName, _imageUrl);
    }
}
