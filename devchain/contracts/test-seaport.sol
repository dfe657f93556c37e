// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

/// Seaport's OrderFulfilled for tests (SubQuery's ethereum-opensea starter), from any call: the call's arguments after
/// its selector are the event's, so a test chooses the selector the mapping reads from the transaction's input (which
/// of Seaport's fulfilment methods it was) and the event's values alike. Nothing is kept.
contract TestSeaport {
    struct SpentItem {
        uint8 itemType;
        address token;
        uint256 identifier;
        uint256 amount;
    }

    struct ReceivedItem {
        uint8 itemType;
        address token;
        uint256 identifier;
        uint256 amount;
        address payable recipient;
    }

    event OrderFulfilled(
        bytes32 orderHash,
        address indexed offerer,
        address indexed zone,
        address recipient,
        SpentItem[] offer,
        ReceivedItem[] consideration
    );

    fallback() external {
        (bytes32 orderHash, address offerer, address zone, address recipient, SpentItem[] memory offer, ReceivedItem[] memory consideration) = abi
            .decode(msg.data[4:], (bytes32, address, address, address, SpentItem[], ReceivedItem[]));
        emit OrderFulfilled(orderHash, offerer, zone, recipient, offer, consideration);
    }
}

/// An NFT collection's metadata and ERC165 answer (the OpenSea starter reads name, symbol, totalSupply and
/// supportsInterface of each collection traded); an empty name makes name() and symbol() revert.
contract TestCollection {
    string private collectionName;
    string private collectionSymbol;
    uint256 public totalSupply;
    bytes4 private supported;

    constructor(string memory name_, string memory symbol_, uint256 totalSupply_, bytes4 supported_) {
        collectionName = name_;
        collectionSymbol = symbol_;
        totalSupply = totalSupply_;
        supported = supported_;
    }

    function name() external view returns (string memory) {
        require(bytes(collectionName).length > 0, "no name");
        return collectionName;
    }

    function symbol() external view returns (string memory) {
        require(bytes(collectionName).length > 0, "no name");
        return collectionSymbol;
    }

    function supportsInterface(bytes4 interfaceId) external view returns (bool) {
        return interfaceId == supported;
    }
}
