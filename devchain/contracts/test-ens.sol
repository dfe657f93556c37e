// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

/// ENS's events for tests (SubQuery's ethereum-ens starter): its registries', resolver's, base registrar's, controllers'
/// and name wrapper's events, as their ABIs declare them (several share a name). Each call emits its event with the
/// values given and keeps nothing; the workload puts this code where each data source looks for its contract.
contract TestEns {
    // the registries
    event Transfer(bytes32 indexed node, address owner);
    event NewOwner(bytes32 indexed node, bytes32 indexed label, address owner);
    event NewResolver(bytes32 indexed node, address resolver);
    event NewTTL(bytes32 indexed node, uint64 ttl);
    // the public resolver
    event ABIChanged(bytes32 indexed node, uint256 indexed contentType);
    event AddrChanged(bytes32 indexed node, address a);
    event AddressChanged(bytes32 indexed node, uint256 coinType, bytes newAddress);
    event AuthorisationChanged(bytes32 indexed node, address indexed owner, address indexed target, bool isAuthorised);
    event ContenthashChanged(bytes32 indexed node, bytes hash);
    event InterfaceChanged(bytes32 indexed node, bytes4 indexed interfaceID, address implementer);
    event NameChanged(bytes32 indexed node, string name);
    event PubkeyChanged(bytes32 indexed node, bytes32 x, bytes32 y);
    event TextChanged(bytes32 indexed node, string indexed indexedKey, string key);
    event TextChanged(bytes32 indexed node, string indexed indexedKey, string key, string value);
    // the base registrar (an ERC721)
    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
    // the controllers, the old one's NameRegistered without the premium
    event NameRegistered(string name, bytes32 indexed label, address indexed owner, uint256 cost, uint256 expires);
    event NameRegistered(string name, bytes32 indexed label, address indexed owner, uint256 baseCost, uint256 premium, uint256 expires);
    event NameRenewed(string name, bytes32 indexed label, uint256 cost, uint256 expires);
    // the name wrapper (an ERC1155)
    event NameWrapped(bytes32 indexed node, bytes name, address owner, uint32 fuses, uint64 expiry);
    event NameUnwrapped(bytes32 indexed node, address owner);
    event FusesSet(bytes32 indexed node, uint32 fuses, uint64 expiry);
    event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value);
    event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values);

    function transferNode(bytes32 node, address owner) external {
        emit Transfer(node, owner);
    }

    function newOwner(bytes32 node, bytes32 label, address owner) external {
        emit NewOwner(node, label, owner);
    }

    function newResolver(bytes32 node, address resolver) external {
        emit NewResolver(node, resolver);
    }

    function newTTL(bytes32 node, uint64 ttl) external {
        emit NewTTL(node, ttl);
    }

    function abiChanged(bytes32 node, uint256 contentType) external {
        emit ABIChanged(node, contentType);
    }

    function addrChanged(bytes32 node, address a) external {
        emit AddrChanged(node, a);
    }

    function addressChanged(bytes32 node, uint256 coinType, bytes calldata newAddress) external {
        emit AddressChanged(node, coinType, newAddress);
    }

    function authorisationChanged(bytes32 node, address owner, address target, bool isAuthorised) external {
        emit AuthorisationChanged(node, owner, target, isAuthorised);
    }

    function contenthashChanged(bytes32 node, bytes calldata hash) external {
        emit ContenthashChanged(node, hash);
    }

    function interfaceChanged(bytes32 node, bytes4 interfaceID, address implementer) external {
        emit InterfaceChanged(node, interfaceID, implementer);
    }

    function nameChanged(bytes32 node, string calldata name) external {
        emit NameChanged(node, name);
    }

    function pubkeyChanged(bytes32 node, bytes32 x, bytes32 y) external {
        emit PubkeyChanged(node, x, y);
    }

    function textChanged(bytes32 node, string calldata key) external {
        emit TextChanged(node, key, key);
    }

    function textChangedWithValue(bytes32 node, string calldata key, string calldata value) external {
        emit TextChanged(node, key, key, value);
    }

    function transferToken(address from, address to, uint256 tokenId) external {
        emit Transfer(from, to, tokenId);
    }

    function nameRegisteredOld(string calldata name, bytes32 label, address owner, uint256 cost, uint256 expires) external {
        emit NameRegistered(name, label, owner, cost, expires);
    }

    function nameRegistered(string calldata name, bytes32 label, address owner, uint256 baseCost, uint256 premium, uint256 expires) external {
        emit NameRegistered(name, label, owner, baseCost, premium, expires);
    }

    function nameRenewed(string calldata name, bytes32 label, uint256 cost, uint256 expires) external {
        emit NameRenewed(name, label, cost, expires);
    }

    function nameWrapped(bytes32 node, bytes calldata name, address owner, uint32 fuses, uint64 expiry) external {
        emit NameWrapped(node, name, owner, fuses, expiry);
    }

    function nameUnwrapped(bytes32 node, address owner) external {
        emit NameUnwrapped(node, owner);
    }

    function fusesSet(bytes32 node, uint32 fuses, uint64 expiry) external {
        emit FusesSet(node, fuses, expiry);
    }

    function transferSingle(address from, address to, uint256 id, uint256 value) external {
        emit TransferSingle(msg.sender, from, to, id, value);
    }

    function transferBatch(address from, address to, uint256[] calldata ids, uint256[] calldata values) external {
        emit TransferBatch(msg.sender, from, to, ids, values);
    }
}
