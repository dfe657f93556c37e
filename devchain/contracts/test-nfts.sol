// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

/// NFTs for tests, with the events and the call of the contracts three of SubQuery's EVM starters index: POAP's
/// EventToken and ERC721 Transfer (ethereum-poap), Crabada's NewCrab and tokenURI (crabada-nft), and Lens Hub's
/// ProfileCreated, PostCreated and Followed (polygon-lens). Each call emits its events with the values given; only
/// the token URIs are kept, and tokenURI reverts for a token that has none, as an ERC721 does for one not minted.
contract TestNfts {
    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
    event EventToken(uint256 eventId, uint256 tokenId);
    event NewCrab(
        address account,
        uint256 id,
        uint256 daddyId,
        uint256 mommyId,
        uint256 dna,
        uint64 birthday,
        uint8 breedingCount
    );
    event ProfileCreated(
        uint256 indexed profileId,
        address indexed creator,
        address indexed to,
        string handle,
        string imageURI,
        address followModule,
        bytes followModuleReturnData,
        string followNFTURI,
        uint256 timestamp
    );
    event PostCreated(
        uint256 indexed profileId,
        uint256 indexed pubId,
        string contentURI,
        address collectModule,
        bytes collectModuleReturnData,
        address referenceModule,
        bytes referenceModuleReturnData,
        uint256 timestamp
    );
    event Followed(address indexed follower, uint256[] profileIds, bytes[] followModuleDatas, uint256 timestamp);

    mapping(uint256 => string) private uris;

    function tokenURI(uint256 tokenId) external view returns (string memory) {
        require(bytes(uris[tokenId]).length > 0, "ERC721: URI query for nonexistent token");
        return uris[tokenId];
    }

    /// a POAP minted: its Transfer from the zero address, then its EventToken
    function mintToken(uint256 eventId, address to, uint256 tokenId) external {
        emit Transfer(address(0), to, tokenId);
        emit EventToken(eventId, tokenId);
    }

    function transfer(address from, address to, uint256 tokenId) external {
        emit Transfer(from, to, tokenId);
    }

    /// a crab minted: its Transfer from the zero address, then its NewCrab; an empty uri leaves tokenURI reverting
    function mintCrab(
        address account,
        uint256 id,
        uint256 daddyId,
        uint256 mommyId,
        uint256 dna,
        uint64 birthday,
        uint8 breedingCount,
        string calldata uri
    ) external {
        if (bytes(uri).length > 0) uris[id] = uri;
        emit Transfer(address(0), account, id);
        emit NewCrab(account, id, daddyId, mommyId, dna, birthday, breedingCount);
    }

    function createProfile(uint256 profileId, address to, string calldata handle, string calldata imageURI, string calldata followNFTURI)
        external
    {
        emit ProfileCreated(profileId, msg.sender, to, handle, imageURI, address(0), "", followNFTURI, block.timestamp);
    }

    function post(uint256 profileId, uint256 pubId, string calldata contentURI, bytes calldata collectData) external {
        emit PostCreated(profileId, pubId, contentURI, address(this), collectData, address(0), "", block.timestamp);
    }

    function follow(uint256[] calldata profileIds, bytes[] calldata datas) external {
        emit Followed(msg.sender, profileIds, datas, block.timestamp);
    }
}
