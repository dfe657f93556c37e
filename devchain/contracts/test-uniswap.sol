// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

/// Uniswap v3 stand-ins for tests, with the events and reads SubQuery's ethereum-uniswap-v3 starter indexes: the
/// factory's PoolCreated and getPool, a pool's Initialize, Mint, Burn, Swap and Flash with its fee growth and ticks,
/// and the position manager's IncreaseLiquidity, DecreaseLiquidity, Collect and Transfer with its positions. Each
/// call emits its event with the values given and keeps only what the reads answer; no tokens move.
contract TestUniFactory {
    event PoolCreated(address indexed token0, address indexed token1, uint24 indexed fee, int24 tickSpacing, address pool);

    mapping(address => mapping(address => mapping(uint24 => address))) public getPool;

    function createPool(address token0, address token1, uint24 fee, int24 tickSpacing, address pool) external {
        getPool[token0][token1][fee] = pool;
        getPool[token1][token0][fee] = pool;
        emit PoolCreated(token0, token1, fee, tickSpacing, pool);
    }
}

contract TestUniPool {
    event Initialize(uint160 sqrtPriceX96, int24 tick);
    event Mint(
        address sender,
        address indexed owner,
        int24 indexed tickLower,
        int24 indexed tickUpper,
        uint128 amount,
        uint256 amount0,
        uint256 amount1
    );
    event Burn(address indexed owner, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount, uint256 amount0, uint256 amount1);
    event Swap(
        address indexed sender,
        address indexed recipient,
        int256 amount0,
        int256 amount1,
        uint160 sqrtPriceX96,
        uint128 liquidity,
        int24 tick
    );
    event Flash(address indexed sender, address indexed recipient, uint256 amount0, uint256 amount1, uint256 paid0, uint256 paid1);

    struct TickInfo {
        uint128 liquidityGross;
        int128 liquidityNet;
        uint256 feeGrowthOutside0X128;
        uint256 feeGrowthOutside1X128;
        int56 tickCumulativeOutside;
        uint160 secondsPerLiquidityOutsideX128;
        uint32 secondsOutside;
        bool initialized;
    }

    uint256 public feeGrowthGlobal0X128;
    uint256 public feeGrowthGlobal1X128;
    mapping(int24 => TickInfo) public ticks;

    function initialize(uint160 sqrtPriceX96, int24 tick) external {
        emit Initialize(sqrtPriceX96, tick);
    }

    /// a mint, the two ticks' fee growth outside set to what is given
    function mint(address owner, int24 tickLower, int24 tickUpper, uint128 amount, uint256 amount0, uint256 amount1, uint256 outside)
        external
    {
        ticks[tickLower] = TickInfo(amount, int128(amount), outside, outside + 1, -7, 0, 0, true);
        ticks[tickUpper] = TickInfo(amount, -int128(amount), outside + 2, outside + 3, 7, 0, 0, true);
        emit Mint(msg.sender, owner, tickLower, tickUpper, amount, amount0, amount1);
    }

    function burn(int24 tickLower, int24 tickUpper, uint128 amount, uint256 amount0, uint256 amount1) external {
        emit Burn(msg.sender, tickLower, tickUpper, amount, amount0, amount1);
    }

    /// a swap, the pool's fee growth set to what is given first
    function swap(
        address recipient,
        int256 amount0,
        int256 amount1,
        uint160 sqrtPriceX96,
        uint128 liquidity,
        int24 tick,
        uint256 growth0,
        uint256 growth1
    ) external {
        feeGrowthGlobal0X128 = growth0;
        feeGrowthGlobal1X128 = growth1;
        emit Swap(msg.sender, recipient, amount0, amount1, sqrtPriceX96, liquidity, tick);
    }

    function flash(address recipient, uint256 amount0, uint256 amount1, uint256 growth0, uint256 growth1) external {
        feeGrowthGlobal0X128 = growth0;
        feeGrowthGlobal1X128 = growth1;
        emit Flash(msg.sender, recipient, amount0, amount1, amount0 / 1000, amount1 / 1000);
    }
}

contract TestPositionManager {
    event IncreaseLiquidity(uint256 indexed tokenId, uint128 liquidity, uint256 amount0, uint256 amount1);
    event DecreaseLiquidity(uint256 indexed tokenId, uint128 liquidity, uint256 amount0, uint256 amount1);
    event Collect(uint256 indexed tokenId, address recipient, uint256 amount0, uint256 amount1);
    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);

    struct Position {
        uint96 nonce;
        address operator;
        address token0;
        address token1;
        uint24 fee;
        int24 tickLower;
        int24 tickUpper;
        uint128 liquidity;
        uint256 feeGrowthInside0LastX128;
        uint256 feeGrowthInside1LastX128;
        uint128 tokensOwed0;
        uint128 tokensOwed1;
    }

    mapping(uint256 => Position) private _positions;

    /// as Uniswap's: reverts for a token that was never minted
    function positions(uint256 tokenId)
        external
        view
        returns (uint96, address, address, address, uint24, int24, int24, uint128, uint256, uint256, uint128, uint128)
    {
        Position memory p = _positions[tokenId];
        require(p.token0 != address(0), "Invalid token ID");
        return (
            p.nonce,
            p.operator,
            p.token0,
            p.token1,
            p.fee,
            p.tickLower,
            p.tickUpper,
            p.liquidity,
            p.feeGrowthInside0LastX128,
            p.feeGrowthInside1LastX128,
            p.tokensOwed0,
            p.tokensOwed1
        );
    }

    /// a position minted (its Transfer from the zero address) and its liquidity added, in one transaction
    function mint(uint256 tokenId, address to, address token0, address token1, uint24 fee, int24 tickLower, int24 tickUpper, uint128 liquidity)
        external
    {
        _positions[tokenId] = Position(0, address(0), token0, token1, fee, tickLower, tickUpper, liquidity, 11, 22, 0, 0);
        emit Transfer(address(0), to, tokenId);
        emit IncreaseLiquidity(tokenId, liquidity, uint256(liquidity) * 3, uint256(liquidity) * 2);
    }

    /// liquidity added, removed (negative) or fees collected for any token id, known or not; fee growth moves on
    function increase(uint256 tokenId, uint128 liquidity, uint256 amount0, uint256 amount1) external {
        _positions[tokenId].feeGrowthInside0LastX128 += 100;
        emit IncreaseLiquidity(tokenId, liquidity, amount0, amount1);
    }

    function decrease(uint256 tokenId, uint128 liquidity, uint256 amount0, uint256 amount1) external {
        _positions[tokenId].feeGrowthInside1LastX128 += 200;
        emit DecreaseLiquidity(tokenId, liquidity, amount0, amount1);
    }

    function collect(uint256 tokenId, address recipient, uint256 amount0, uint256 amount1) external {
        emit Collect(tokenId, recipient, amount0, amount1);
    }

    function transfer(address from, address to, uint256 tokenId) external {
        emit Transfer(from, to, tokenId);
    }
}
