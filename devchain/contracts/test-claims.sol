// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

/// Claims, rewards and transfers for tests, with the events of the contracts four of SubQuery's EVM starters index:
/// an airdrop's Claimed (optimism-airdrop), an ERC721 drop's TokensClaimed (base-nft), an LSP7 token's Transfer
/// (lukso-starter) and a staking pool's RewardPaid (pangolin-rewards-tutorial). Each call emits its event with the
/// values given; nothing is kept.
contract TestClaims {
    event Claimed(uint256 index, address account, uint256 amount);
    event TokensClaimed(
        uint256 indexed claimConditionIndex,
        address indexed claimer,
        address indexed receiver,
        uint256 startTokenId,
        uint256 quantityClaimed
    );
    event RewardPaid(address indexed user, uint256 reward);
    event Transfer(address indexed operator, address indexed from, address indexed to, uint256 amount, bool force, bytes data);

    function claim(uint256 index, address account, uint256 amount) external {
        emit Claimed(index, account, amount);
    }

    function claimTokens(uint256 condition, address receiver, uint256 startTokenId, uint256 quantity) external {
        emit TokensClaimed(condition, msg.sender, receiver, startTokenId, quantity);
    }

    function payReward(address user, uint256 reward) external {
        emit RewardPaid(user, reward);
    }

    function lsp7Transfer(address from, address to, uint256 amount, bool force, bytes calldata data) external {
        emit Transfer(msg.sender, from, to, amount, force, data);
    }
}
