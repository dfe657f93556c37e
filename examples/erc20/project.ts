import {
  EthereumDatasourceKind,
  EthereumHandlerKind,
  type EthereumProject,
} from "@subql/types-ethereum";

// A SubQuery-format manifest. idx provides @subql/types-ethereum: `idx codegen` writes its types
// to src/types/ethereum.ts (tsconfig.json maps the import there), so nothing needs installing.
const project: EthereumProject = {
  specVersion: "1.0.0",
  version: "0.0.1",
  name: "erc20-starter",
  description: "Indexes the transfers and balances of an ERC20 token on a local chain",
  runner: {
    node: { name: "@subql/node-ethereum", version: ">=3.0.0" },
    query: { name: "@subql/query", version: "*" },
  },
  schema: { file: "./schema.graphql" },
  network: {
    // a local anvil or hardhat chain; change both for another network
    chainId: "31337",
    endpoint: ["http://127.0.0.1:8545"],
  },
  dataSources: [
    {
      kind: EthereumDatasourceKind.Runtime,
      startBlock: 1,
      options: {
        abi: "erc20",
        // where the first contract deployed by anvil's first account lands; put your token here
        address: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
      },
      assets: new Map([["erc20", { file: "./abis/erc20.abi.json" }]]),
      mapping: {
        file: "./dist/index.js",
        handlers: [
          {
            kind: EthereumHandlerKind.Event,
            handler: "handleTransfer",
            filter: {
              topics: ["Transfer(address indexed from, address indexed to, uint256 value)"],
            },
          },
          {
            kind: EthereumHandlerKind.Block,
            handler: "handleBlock",
            filter: { modulo: 5 },
          },
        ],
      },
    },
  ],
};

export default project;
