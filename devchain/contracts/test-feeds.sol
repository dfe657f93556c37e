// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

/// A price-feed registry for tests, with the event SubQuery's ethereum-chainlink starter indexes from
/// Chainlink's FeedRegistry: each confirmation names the aggregator that now serves a pair (the zero
/// address when the pair is retired) and the one it replaces.
contract TestFeedRegistry {
    event FeedConfirmed(
        address indexed asset,
        address indexed denomination,
        address indexed latestAggregator,
        address previousAggregator,
        uint16 nextPhaseId,
        address sender
    );

    function confirmFeed(address asset, address denomination, address latestAggregator, address previousAggregator, uint16 nextPhaseId) external {
        emit FeedConfirmed(asset, denomination, latestAggregator, previousAggregator, nextPhaseId, msg.sender);
    }
}

/// A price aggregator for tests, with the event and the calls of Chainlink's
/// AccessControlledOffchainAggregator that the starter reads (AnswerUpdated, description, decimals).
contract TestAggregator {
    string public description;
    uint8 public decimals;

    event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt);

    constructor(string memory description_, uint8 decimals_) {
        description = description_;
        decimals = decimals_;
    }

    function update(int256 current, uint256 roundId) external {
        emit AnswerUpdated(current, roundId, block.timestamp);
    }

    /// two answers in one transaction
    function updateTwice(int256 first, int256 second, uint256 roundId) external {
        emit AnswerUpdated(first, roundId, block.timestamp);
        emit AnswerUpdated(second, roundId + 1, block.timestamp);
    }
}
