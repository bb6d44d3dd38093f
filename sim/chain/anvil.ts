// The ChainPort on the deployed contracts (Anvil through JSON-RPC), with the
// memory port's semantics. Settlement transactions are signed locally by the
// executor key (own nonce counter, fixed gas from the batch size, EIP-1559 fees)
// the moment they are submitted, so the tx hash is known at once; the raw
// transactions are queued and go out together in ONE JSON-RPC batch as soon as
// anything needs the chain (a read, a receipt, mining) or the event loop turns.
// The engine submits a whole settle() round back to back, so a round costs one
// request instead of one per batch.
import { setImmediate, setTimeout } from "node:timers";
import { performance } from "node:perf_hooks";
import { decodeAbiParameters, encodeFunctionData, type Abi } from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { Exchange, Router, TestToken, Vault } from "./artifacts.ts";
import { encodeMatchBatch, signEip1559 } from "./anvil-tx.ts";
import { JsonRpcClient, MAX_REQUEST_CHARS, RPC_DEADLINE_MS, RpcError, requestPieces, toQuantity, type RpcCall, type RpcOutcome } from "./anvil-rpc.ts";
import {
  decodeRevertData,
  parseDepositLog,
  parseSettlementReceipt,
  parseWithdrawalLogs,
  TOPIC_BATCH_SETTLED,
  TOPIC_DEPOSIT,
  TOPIC_INTENT_DEPOSIT,
  TOPIC_MATCH_FAILED,
  TOPIC_WITHDRAWAL,
  TOPIC_INSTANT_WITHDRAW,
  type RawLog,
  type RawReceipt,
} from "./anvil-receipts.ts";
import { hashTyped, toContractSignature } from "../signing/signatures.ts";
import { nextTurn } from "../platform/next-turn.ts";
import { INTENT_TYPE, ORDER_TYPE, exchangeDomain, type Address, type ExchangeDomain, type Hex, type IntentMessage, type OrderMessage } from "../core/typed-data.ts";
import type { ChainIntent } from "../core/swap-intent.ts";
import type { PermitReader } from "../core/quotes.ts";
import type { BatchReceipt, ChainMatch, ChainPort, DepositEvent, SubmitOptions, WithdrawalEvent } from "./port.ts";

export const ANVIL_MAX_BATCH_SIZE = 20;

/** The vault event kinds a vault sync reads (vaultLogs). */
type VaultLogKind = "deposit" | "intentDeposit" | "withdrawal";
const VAULT_LOG_KINDS: readonly VaultLogKind[] = ["deposit", "intentDeposit", "withdrawal"];

/** How Anvil produces blocks. */
export type BlockMode = { kind: "automine" } | { kind: "interval"; seconds: number } | { kind: "manual" };

export interface AnvilDeploymentInfo {
  exchange: Address;
  vault: Address;
  /** Needed for swaps (submitIntent, IntentDeposit events). */
  router?: Address;
  feeRecipient: Address;
  domainName: string;
}

export interface AnvilChainPortOptions {
  rpcUrl: string;
  chainId: number;
  deployment: AnvilDeploymentInfo;
  /** Holds EXECUTOR_ROLE on the exchange. */
  executorKey: Hex;
  maxBatchSize?: number;
  /** Applied at creation; default automine. */
  blockMode?: BlockMode;
  /** Gas limit of a settlement tx = base + perMatch × matches (defaults measured with headroom). */
  gas?: { base: bigint; perMatch: bigint };
  priorityFeePerGas?: bigint;
}

export interface PermitState {
  /** ERC-2612: `nonces(owner)` and a domain (`DOMAIN_SEPARATOR` or `eip712Domain`) answer. */
  supported: boolean;
  nonce: bigint;
  name: string;
  version: string;
  allowance: bigint;
}

/** A signed transaction waiting for, or past, its broadcast. */
interface SignedTx {
  hash: Hex;
  raw: Hex;
  nonce: number;
  settlement: boolean;
  /** A match batch: its outcome can be read from BatchSettled / MatchFailed logs alone. */
  batch: boolean;
  /** Head block known when it was sent: it is mined above this. */
  sentAfter: bigint;
  /** Its gas limit: what block packing counts against the block's gas limit. */
  gas: bigint;
  /** Set when the node refused the transaction; the receipt then reports a failed batch. */
  sendError: string | null;
  /** Epoch of the last receipt poll that saw it unmined. */
  polledEpoch: number;
}

// Measured on Anvil (prague): 20 first-fill matches of EOAs on the contract's fast path use
// ~1.07M gas (~54k each incl. calldata); a fill on the reference path (own call frame: a
// payout recipient, an initial deposit, an EIP-1271 signer, an active fault) costs more.
// Generous on purpose: a tx out of gas would fail a whole batch, while unused gas costs
// nothing but block space.
const DEFAULT_GAS = { base: 100_000n, perMatch: 200_000n };
const CONTROL_GAS = 200_000n;
/** executeIntent: signature check, optional permit and wallet pull, one settleRouterLeg per leg, then the gas charge. */
const INTENT_GAS = { base: 360_000n, perLeg: 250_000n };
const AUTOMINE_WAIT_MS = 30_000;
/**
 * evm_revert refused a snapshot id the port took: Anvil no longer has it. An evm_revert sent
 * to Anvil directly (through rpc_url) spends the snapshot it goes back to and every one
 * taken after it, the port's included.
 */
export class ChainSnapshotGoneError extends Error {
  constructor(snapshotId: Hex, cause: unknown) {
    super(`Anvil no longer has chain snapshot ${snapshotId}`, cause === null ? undefined : { cause });
  }
}

/** No block for this long while our transactions wait under automine: they are stranded (see awaitMined). */
const AUTOMINE_STALL_MS = 2_000;
const RECEIPT_CACHE_MAX = 100_000;
/**
 * Receipts applied between two turns of the event loop: a poll of a big backlog (3,200
 * batches for 64,000 fills) and an engine applying them took over a second in one piece,
 * and every other request of the process waited for it. Counted, not timed: ~1,000 fills
 * of work, a few milliseconds, between turns.
 */
const RECEIPTS_PER_TURN = 50;
/**
 * A long round goes out in pieces of this size while the rest is still being signed, each
 * its own block (two requests of MAX_REQUEST_CHARS, sent at once). Pieces are cut by size,
 * never by when the node answers, so a round's blocks are the same on every run; at this
 * size (~77 compact 20-fill batches) a 200-transaction round is about as fast as when
 * pieces merged while a request was in flight (bench:settlement, BENCHMARKS.md, thirty-second
 * session), and Anvil pays its per-block work on few blocks.
 */
const EARLY_FLUSH_CHARS = 2 * MAX_REQUEST_CHARS;
/** The first ~20 transactions of a round go out at once: the node starts executing early. */
const FIRST_FLUSH_CHARS = 512_000;
const GWEI = 1_000_000_000n;
/** bytes32(IERC1271.isValidSignature.selector): what a valid answer's first word is. */
const EIP1271_MAGIC_WORD = `0x1626ba7e${"0".repeat(56)}`;

/** Build a port and apply its block mode; reads the executor's nonce and the base fee. */
export async function createAnvilChainPort(options: AnvilChainPortOptions): Promise<AnvilChainPort> {
  const { port, ready } = openAnvilChainPort(options);
  await ready;
  return port;
}

/**
 * createAnvilChainPort with its one init request still in flight: the port object at once
 * (to wire into an engine and the other layers meanwhile), `ready` once it may talk to the
 * chain. Nothing may use the chain through it before. `after`: the init request waits for
 * it (a chain request of the caller's still in flight).
 */
export function openAnvilChainPort(options: AnvilChainPortOptions, after: Promise<unknown> = Promise.resolve()): { port: AnvilChainPort; ready: Promise<void> } {
  const port = new AnvilChainPort(options);
  return { port, ready: after.then(() => port.init(options.blockMode ?? { kind: "automine" })) };
}

/** What a snapshot's revert puts back or finds, recorded when it was taken. */
interface SnapshotSettings {
  /** The next block's base fee and the coinbase: set again by the revert. */
  baseFee?: string;
  coinbase?: string;
  /** The executor's nonce and the head block: what the reverted chain reads (absent: read at the revert). */
  nonce?: string;
  head?: { number: string; baseFeePerGas?: string; gasLimit?: string };
}

export class AnvilChainPort implements ChainPort {
  readonly maxBatchSize: number;
  readonly feeRecipient: Address;
  readonly rpc: JsonRpcClient;
  readonly exchange: Address;
  readonly vault: Address;
  readonly router: Address | null;
  readonly domain: ExchangeDomain;
  readonly executor: PrivateKeyAccount;
  private readonly executorKey: Uint8Array;
  private readonly chainId: number;
  private readonly gas: { base: bigint; perMatch: bigint };
  private readonly priorityFee: bigint;
  private baseFee = GWEI;
  /** The head block's gas limit, read from the chain (fakex starts Anvil with 1e9; Anvil's own default is 30M). */
  private blockGasLimit = 30_000_000n;
  private nonce = 0;
  private mode: BlockMode = { kind: "automine" };
  /** Block mode changes in flight (setBlockMode); no automine pause meanwhile. */
  private changingMode = 0;
  /**
   * Signed, not yet sent, in nonce order: the piece being signed, and pieces closed and
   * waiting their turn. A round (what is signed between two syncs) goes to the node in
   * pieces cut by size as it is signed, and at its end, each its own send (and so its own
   * block under automine): cut where the signing is, never where the node's answers happen
   * to be, so a round lands in the same blocks on every run.
   */
  private queue: SignedTx[] = [];
  private closedPieces: SignedTx[][] = [];
  /** The round has had a piece cut by size: the first is cut sooner; after it, the open piece waits for the round's end. */
  private roundInPieces = false;
  private flushing: Promise<void> | null = null;
  private flushScheduled = false;
  /** Sent settlement txs without a receipt yet. */
  private outstanding = new Map<string, SignedTx>();
  private receipts = new Map<string, BatchReceipt>();
  private epoch = 0;
  /** evm_reverts so far: what a poll read before one is of a chain that is gone. */
  private reverts = 0;
  /** getReceipt calls so far: every RECEIPTS_PER_TURN-th gives the event loop a turn. */
  private receiptAnswers = 0;
  private queuedChars = 0;
  /** Highest executor nonce the node accepted, and the executor's mined nonce count last seen. */
  private lastSentNonce = -1;
  private minedBelow = 0;
  private lastSentHash: Hex | null = null;
  /** Automine was paused for a group since the last wait for blocks: see mineWhatOthersLeft. */
  private othersMayWait = false;
  /** Latest head this port has seen (a lower bound for where its next txs are mined). */
  private knownHead = 0n;
  /**
   * Raw transactions in the node's pool when a chain snapshot was taken, by snapshot id
   * (only snapshots that had any). evm_revert leaves Anvil's pool as it is, so a revert
   * empties the pool and sends these again (see revertTo).
   */
  private poolAtSnapshot = new Map<Hex, string[]>();
  /**
   * Node settings evm_revert leaves as they are, by snapshot id: the next block's base fee
   * (later blocks moved Anvil's fee tracker, so the restored chain would price gas by what
   * ran after the snapshot) and the coinbase (anvil_setCoinbase through rpc_url would sign
   * every later block, hashes included). revertTo puts them back.
   */
  private settingsAtSnapshot = new Map<Hex, SnapshotSettings>();
  /** Vault logs read along with another kind's, for the calls that follow (vaultLogs). */
  private logsAhead: { key: string; logs: Map<VaultLogKind, RawLog[]> } | null = null;

  constructor(o: AnvilChainPortOptions) {
    this.maxBatchSize = o.maxBatchSize ?? ANVIL_MAX_BATCH_SIZE;
    this.feeRecipient = o.deployment.feeRecipient.toLowerCase() as Address;
    this.exchange = o.deployment.exchange.toLowerCase() as Address;
    this.vault = o.deployment.vault.toLowerCase() as Address;
    this.router = (o.deployment.router?.toLowerCase() as Address | undefined) ?? null;
    this.chainId = o.chainId;
    this.domain = exchangeDomain(o.deployment.domainName, o.chainId, this.exchange);
    this.rpc = new JsonRpcClient(o.rpcUrl);
    this.executor = privateKeyToAccount(o.executorKey);
    this.executorKey = Buffer.from(o.executorKey.slice(2), "hex");
    this.gas = o.gas ?? DEFAULT_GAS;
    this.priorityFee = o.priorityFeePerGas ?? GWEI;
  }

  /** @internal createAnvilChainPort calls this once: nonce, head and block mode in one request. */
  async init(mode: BlockMode): Promise<void> {
    const calls = blockModeCalls(mode);
    const [nonce, head, ...modeOuts] = await this.rpc.batch([
      { method: "eth_getTransactionCount", params: [this.executor.address, "pending"] },
      { method: "eth_getBlockByNumber", params: ["latest", false] },
      ...calls,
    ]);
    if (!nonce!.ok) throw nonce!.error;
    this.applyNonce(nonce!.result as string);
    if (!head!.ok) throw head!.error;
    this.applyHead(head!.result as { number: string; baseFeePerGas?: string });
    for (const out of modeOuts) if (!out.ok) throw out.error;
    this.mode = mode;
  }

  // ------------------------------------------------------------ block production

  get blockMode(): BlockMode {
    return this.mode;
  }

  /** automine (a block per tx), interval (a block every n seconds), or manual (mine()). */
  async setBlockMode(mode: BlockMode): Promise<void> {
    await this.sync();
    const calls = blockModeCalls(mode);
    // A round sent while these calls are in flight must not pause and resume automine
    // around them (its resume would undo the new mode): see send().
    this.changingMode++;
    try {
      for (const out of await this.rpc.batch(calls)) if (!out.ok) throw out.error;
      this.mode = mode;
    } finally {
      this.changingMode--;
    }
  }

  async blockNumber(): Promise<bigint> {
    await this.sync();
    this.epoch++;
    const head = BigInt(await this.rpc.call<string>("eth_blockNumber"));
    this.noteHead(head);
    return head;
  }

  async mine(blocks = 1): Promise<void> {
    // Past the bound one call holds the chain (and every request after it) for minutes.
    if (!Number.isInteger(blocks) || blocks < 1 || blocks > MAX_MINE_BLOCKS) throw new RangeError(`mine needs a whole number of blocks, 1 to ${MAX_MINE_BLOCKS}, got ${blocks}`);
    await this.sync();
    // Many blocks take minutes on a slow machine (100,000 took over ten on two busy cores):
    // the deadline grows with them.
    await this.rpc.call("anvil_mine", [toQuantity(blocks)], RPC_DEADLINE_MS + blocks * 20);
    this.epoch++;
  }

  // ------------------------------------------------------------ time

  /** Timestamp of the next block (evm_setNextBlockTimestamp); must not go back. */
  async setNextBlockTimestamp(sec: bigint | number): Promise<void> {
    await this.rpc.call("evm_setNextBlockTimestamp", [toQuantity(BigInt(sec))]);
  }

  /** Move chain time forward by `sec` seconds for the following blocks (evm_increaseTime). */
  async increaseTime(sec: bigint | number): Promise<void> {
    await this.rpc.call("evm_increaseTime", [toQuantity(BigInt(sec))]);
  }

  /** Set Anvil's clock so the following blocks carry `sec` onwards (evm_setTime). */
  async setTime(sec: bigint | number): Promise<void> {
    await this.rpc.call("evm_setTime", [toQuantity(BigInt(sec))]);
  }

  /** Timestamp of the latest block. */
  async latestTimestamp(): Promise<bigint> {
    await this.sync();
    const block = await this.rpc.call<{ timestamp: string }>("eth_getBlockByNumber", ["latest", false]);
    return BigInt(block.timestamp);
  }

  // ------------------------------------------------------------ balances and deposits

  async walletBalance(owner: Address, token: Address): Promise<bigint> {
    return this.tokenBalance(token, owner);
  }

  /** ERC-20 balanceOf. */
  async tokenBalance(token: Address, owner: Address): Promise<bigint> {
    await this.sync();
    return BigInt(await this.ethCall(token, encodeFunctionData({ abi: TestToken.abi, functionName: "balanceOf", args: [owner] })));
  }

  async vaultBalance(owner: Address, token: Address): Promise<bigint> {
    await this.sync();
    return BigInt(await this.ethCall(this.vault, encodeFunctionData({ abi: Vault.abi, functionName: "balanceOf", args: [owner, token] })));
  }

  /** Exchange `Deposit` events in [fromBlock, toBlock], in chain order. */
  async depositEvents(fromBlock: bigint, toBlock: bigint): Promise<DepositEvent[]> {
    return (await this.vaultLogs("deposit", fromBlock, toBlock)).map(parseDepositLog);
  }

  /** Router `IntentDeposit(taker, token, amount)`: wallet funds a swap pulled into the taker's vault. */
  async intentDepositEvents(fromBlock: bigint, toBlock: bigint): Promise<DepositEvent[]> {
    if (this.router === null) return [];
    return (await this.vaultLogs("intentDeposit", fromBlock, toBlock)).map(parseDepositLog);
  }

  /** Exchange `Withdrawal(user, token, amount, to)` events, read with the `InstantWithdraw` events that name their intents. */
  async withdrawalEvents(fromBlock: bigint, toBlock: bigint): Promise<WithdrawalEvent[]> {
    return parseWithdrawalLogs(await this.vaultLogs("withdrawal", fromBlock, toBlock));
  }

  private logFilter(kind: VaultLogKind): { address: Address; topics: (Hex | Hex[])[] } {
    if (kind === "intentDeposit") return { address: this.router!, topics: [TOPIC_INTENT_DEPOSIT] };
    if (kind === "deposit") return { address: this.exchange, topics: [TOPIC_DEPOSIT] };
    // Either topic: an instant withdrawal's uuid is in its InstantWithdraw event.
    return { address: this.exchange, topics: [[TOPIC_WITHDRAWAL, TOPIC_INSTANT_WITHDRAW]] };
  }

  /**
   * The vault's logs of one kind in [fromBlock, toBlock]. A vault sync reads the three kinds
   * of one range back to back: on a range up to a head this port has seen (the engine asks
   * up to the head it just read), one request reads every kind, and the calls that follow
   * in the same turn of the event loop take theirs from it (blocks up to a seen head change
   * only by a revert, which moves the epoch and so the key).
   */
  private async vaultLogs(kind: VaultLogKind, fromBlock: bigint, toBlock: bigint): Promise<RawLog[]> {
    const key = `${this.epoch}:${fromBlock}:${toBlock}`;
    const ahead = this.logsAhead?.key === key ? this.logsAhead.logs.get(kind) : undefined;
    if (ahead) {
      this.logsAhead!.logs.delete(kind);
      return ahead;
    }
    await this.sync();
    const range = { fromBlock: toQuantity(fromBlock), toBlock: toQuantity(toBlock) };
    if (toBlock <= this.knownHead && fromBlock <= toBlock) {
      const kinds = VAULT_LOG_KINDS.filter((k) => k !== "intentDeposit" || this.router !== null);
      const outs = await this.rpc.batch(kinds.map((k) => ({ method: "eth_getLogs", params: [{ ...this.logFilter(k), ...range }] })));
      // An error: the node's head moved back behind the port's back (an evm_revert sent
      // straight to Anvil); read the head first, below.
      if (outs.every((o) => o.ok)) {
        const logs = new Map(kinds.map((k, i) => [k, (outs[i] as { result: RawLog[] }).result]));
        const mine = logs.get(kind)!;
        logs.delete(kind);
        this.logsAhead = { key, logs };
        setImmediate(() => {
          if (this.logsAhead?.key === key) this.logsAhead = null;
        });
        return mine;
      }
    }
    // The node refuses ranges past its head; the memory port answers them with nothing.
    const head = BigInt(await this.rpc.call<string>("eth_blockNumber"));
    this.noteHead(head);
    if (toBlock > head) toBlock = head;
    if (toBlock < fromBlock) return [];
    return this.rpc.call<RawLog[]>("eth_getLogs", [{ ...this.logFilter(kind), ...range, toBlock: toQuantity(toBlock) }]);
  }

  // ------------------------------------------------------------ swaps

  /** Router.executeIntent(intent, takerSignature, legs, permit), sent by the executor; receipt via getReceipt. */
  async submitIntent(ci: ChainIntent): Promise<{ txHash: Hex }> {
    if (this.router === null) throw new Error("submitIntent: the deployment has no router address");
    const data = encodeFunctionData({
      abi: Router.abi,
      functionName: "executeIntent",
      args: [
        { ...ci.intent, deadline: Number(ci.intent.deadline) },
        toContractSignature(ci.takerSignature),
        ci.legs.map((l) => ({
          order: { ...l.order, expiration: Number(l.order.expiration), feeBps: Number(l.order.feeBps) },
          signature: toContractSignature(l.signature),
          makerAmount: l.makerAmount,
          takerAmount: l.takerAmount,
        })),
        ci.permit ? { ...ci.permit, signature: toContractSignature(ci.permit.signature) } : { value: 0n, deadline: 0n, signature: "0x" },
        ci.gas,
      ],
    });
    const legs = BigInt(Math.max(1, ci.legs.length));
    const tx = await this.sign(this.router, data, INTENT_GAS.base + INTENT_GAS.perLeg * legs, true);
    return { txHash: tx.hash };
  }

  /** The fault hook on the pair settleRouterLeg checks: (orderHash(maker), intent digest). */
  async setIntentLegFault(maker: OrderMessage, intent: IntentMessage, reason: string): Promise<void> {
    if (reason.length === 0) throw new Error("setIntentLegFault: EMPTY_REASON");
    const data = encodeFunctionData({ abi: Exchange.abi, functionName: "setMatchFault", args: [this.orderHash(maker), this.intentHash(intent), reason] });
    await this.sign(this.exchange, data, CONTROL_GAS + 20_000n * BigInt(Math.ceil(reason.length / 32)), false);
  }

  async clearIntentLegFault(maker: OrderMessage, intent: IntentMessage): Promise<void> {
    const data = encodeFunctionData({ abi: Exchange.abi, functionName: "clearMatchFault", args: [this.orderHash(maker), this.intentHash(intent)] });
    await this.sign(this.exchange, data, CONTROL_GAS, false);
  }

  /** EIP-712 digest of an Intent under the exchange domain (Router.intentHash). */
  intentHash(intent: IntentMessage): Hex {
    return hashTyped(this.domain, { Intent: INTENT_TYPE }, "Intent", intent as unknown as Record<string, unknown>);
  }

  // ------------------------------------------------------------ settlement

  async submitBatch(matches: ChainMatch[], options: SubmitOptions = {}): Promise<{ txHash: Hex }> {
    // An empty or oversized batch still goes to the chain: the contract's revert
    // (EMPTY_BATCH / BATCH_TOO_LARGE) is the answer, as on the memory port.
    const data = encodeMatchBatch(matches.map(contractMatch), options.atomic === true) as Hex;
    const n = BigInt(Math.max(1, Math.min(matches.length, this.maxBatchSize)));
    const tx = await this.sign(this.exchange, data, this.gas.base + this.gas.perMatch * n, true, true);
    return { txHash: tx.hash };
  }

  async getReceipt(txHash: Hex): Promise<BatchReceipt | null> {
    const key = txHash.toLowerCase();
    // The engine asks for a round's receipts one after another and most come from the cache
    // at once: without a turn now and then its whole round would run as one block.
    if (++this.receiptAnswers % RECEIPTS_PER_TURN === 0) await nextTurn();
    const known = this.receipts.get(key);
    if (known) return known;
    await this.sync();
    const tx = this.outstanding.get(key);
    if (!tx) return this.receipts.get(key) ?? this.fetchReceipt(key as Hex);
    if (tx.polledEpoch === this.epoch) return null;
    await this.pollReceipts();
    return this.receipts.get(key) ?? null;
  }

  async setMatchFault(maker: OrderMessage, taker: OrderMessage, reason: string): Promise<void> {
    if (reason.length === 0) throw new Error("setMatchFault: EMPTY_REASON");
    const data = encodeFunctionData({
      abi: Exchange.abi,
      functionName: "setMatchFault",
      args: [this.orderHash(maker), this.orderHash(taker), reason],
    });
    await this.sign(this.exchange, data, CONTROL_GAS + 20_000n * BigInt(Math.ceil(reason.length / 32)), false);
  }

  async clearMatchFault(maker: OrderMessage, taker: OrderMessage): Promise<void> {
    const data = encodeFunctionData({ abi: Exchange.abi, functionName: "clearMatchFault", args: [this.orderHash(maker), this.orderHash(taker)] });
    await this.sign(this.exchange, data, CONTROL_GAS, false);
  }

  /** The Exchange's EIP-712 digest of an order (what `filled` and the fault hook key on). */
  orderHash(o: OrderMessage): Hex {
    return hashTyped(this.domain, { Order: ORDER_TYPE }, "Order", o as unknown as Record<string, unknown>);
  }

  /** Filled amount of an order on the Exchange. */
  async filledOf(o: OrderMessage): Promise<bigint> {
    await this.sync();
    return BigInt(await this.ethCall(this.exchange, encodeFunctionData({ abi: Exchange.abi, functionName: "filled", args: [this.orderHash(o)] })));
  }

  // ------------------------------------------------------------ signatures and permits (HTTP layer)

  /** Whether `addr` has code (a contract wallet, or an EIP-7702-delegated EOA). */
  async isContract(addr: Address): Promise<boolean> {
    const code = await this.rpc.call<string>("eth_getCode", [addr, "latest"]);
    return code !== "0x" && code !== "0x0" && code !== "";
  }

  /** EIP-1271 `isValidSignature(digest, signature)` returned the magic value; false on revert. */
  async isValidSignature(addr: Address, digest: Hex, signature: Hex): Promise<boolean> {
    const data = encodeFunctionData({
      abi: ERC1271_ABI,
      functionName: "isValidSignature",
      args: [digest, signature],
    });
    try {
      const out = await this.ethCall(addr, data);
      // As OpenZeppelin's SignatureChecker (the contracts' check): at least one 32-byte word,
      // and that word the selector followed by zeros; a bare 4-byte answer or a dirty word fails.
      return out.length >= 66 && out.slice(0, 66).toLowerCase() === EIP1271_MAGIC_WORD;
    } catch (e) {
      if (e instanceof RpcError) return false;
      throw e;
    }
  }

  /** ERC-2612 state of `token` for a permit from `owner` to `spender`. */
  async permitState(token: Address, owner: Address, spender: Address): Promise<PermitState> {
    const abi = TestToken.abi as Abi;
    const call = (functionName: string, args: readonly unknown[] = []): RpcCall => ({
      method: "eth_call",
      params: [{ to: token, data: encodeFunctionData({ abi, functionName, args }) }, "latest"],
    });
    const [nonces, separator, domain, name, allowance] = await this.rpc.batch([
      call("nonces", [owner]),
      call("DOMAIN_SEPARATOR"),
      call("eip712Domain"),
      call("name"),
      call("allowance", [owner, spender]),
    ]);
    const word = (o: typeof nonces): bigint | null => (o!.ok && typeof o!.result === "string" && o!.result.length >= 66 ? BigInt((o!.result as string).slice(0, 66)) : null);
    const nonce = word(nonces);
    let domainName: string | null = null;
    let version = "1";
    if (domain!.ok && typeof domain!.result === "string" && domain!.result.length > 2) {
      try {
        const decoded = decodeEip712Domain(domain!.result as Hex);
        domainName = decoded.name;
        version = decoded.version;
      } catch {
        // fall back to name()
      }
    }
    if (domainName === null && name!.ok && typeof name!.result === "string" && name!.result.length > 2) {
      try {
        domainName = decodeString(name!.result as Hex);
      } catch {
        // A name() that is not an ABI string (bytes32, as some older tokens answer): no name.
      }
    }
    const hasDomain = (separator!.ok && typeof separator!.result === "string" && separator!.result.length >= 66) || domain!.ok;
    return {
      supported: nonce !== null && hasDomain,
      nonce: nonce ?? 0n,
      name: domainName ?? "",
      version,
      allowance: word(allowance) ?? 0n,
    };
  }

  /** The swap desk's PermitReader on this chain (engine option swaps.permitReader). */
  permitReader(): PermitReader {
    return async (token, owner, spender) => {
      const st = await this.permitState(token.address, owner, spender);
      return { nonce: st.nonce, name: st.name || token.symbol, version: st.version, allowance: st.allowance };
    };
  }

  // ------------------------------------------------------------ snapshots

  /**
   * evm_snapshot; flushes first so queued transactions belong to the snapshot. Outside
   * automine, transactions may wait in the pool at that moment: they are kept with the
   * snapshot, since a revert to it must put them back (the pool is no part of evm_snapshot).
   */
  async snapshot(): Promise<Hex> {
    await this.sync();
    const [snap, status, fees, coinbase, nonce, head] = await this.rpc.batch([
      { method: "evm_snapshot", params: [] },
      { method: "txpool_status", params: [] },
      // The last of baseFeePerGas is the next block's.
      { method: "eth_feeHistory", params: ["0x1", "latest", []] },
      { method: "eth_coinbase", params: [] },
      // What a revert to this snapshot finds, read once here rather than at every revert.
      { method: "eth_getTransactionCount", params: [this.executor.address, "latest"] },
      { method: "eth_getBlockByNumber", params: ["latest", false] },
    ]);
    if (!snap!.ok) throw snap!.error;
    const id = snap!.result as Hex;
    const baseFee = fees!.ok ? (fees!.result as { baseFeePerGas?: string[] }).baseFeePerGas?.at(-1) : undefined;
    this.settingsAtSnapshot.set(id, {
      ...(baseFee !== undefined ? { baseFee } : {}),
      ...(coinbase!.ok ? { coinbase: coinbase!.result as string } : {}),
      ...(nonce!.ok && head!.ok ? { nonce: nonce!.result as string, head: head!.result as NonNullable<SnapshotSettings["head"]> } : {}),
    });
    const waiting = status!.ok ? (status!.result as { pending?: string; queued?: string }) : null;
    if (waiting !== null && Number(waiting.pending ?? 0) + Number(waiting.queued ?? 0) > 0) {
      const raws = await this.poolRaws();
      if (raws.length > 0) this.poolAtSnapshot.set(id, raws);
    }
    return id;
  }

  /** Every transaction in the node's pool as raw bytes, each sender's in nonce order. */
  private async poolRaws(): Promise<string[]> {
    type PoolTx = { hash: Hex; nonce: string };
    const content = await this.rpc.call<{ pending?: Record<string, Record<string, PoolTx>>; queued?: Record<string, Record<string, PoolTx>> }>("txpool_content");
    const txs: PoolTx[] = [];
    for (const part of [content.pending, content.queued]) {
      for (const bySender of Object.values(part ?? {})) txs.push(...Object.values(bySender));
    }
    txs.sort((a, b) => Number(BigInt(a.nonce) - BigInt(b.nonce)));
    if (txs.length === 0) return [];
    const outs = await this.rpc.batch(txs.map((t) => ({ method: "eth_getRawTransactionByHash", params: [t.hash] })));
    return outs.flatMap((o) => (o.ok && typeof o.result === "string" ? [o.result] : []));
  }

  /** evm_revert to a snapshot id; forgets receipts and resyncs the executor nonce. */
  async revert(id: Hex): Promise<void> {
    await this.revertTo(id, false);
  }

  /**
   * evm_revert to `id`, then a fresh evm_snapshot of the reverted chain (evm_revert consumes
   * the one it used): what an all-layer restore needs, in ONE JSON-RPC batch with the nonce
   * and head reads a revert needs anyway. Anvil answers a batch's calls in order: the revert
   * moves the head before its state write, and the later reads and the snapshot wait behind
   * that write on Anvil's state lock, so they all see the reverted chain.
   */
  async revertAndSnapshot(id: Hex): Promise<Hex> {
    return (await this.revertTo(id, true))!;
  }

  private async revertTo(id: Hex, snapshotAfter: boolean): Promise<Hex | null> {
    await this.sync();
    // evm_revert keeps Anvil's pool: a settlement sent after the snapshot and not yet mined
    // (manual or interval blocks) would be mined into the restored chain, moving funds the
    // restored engine knows nothing of. So the pool is emptied and refilled with what it
    // held at the snapshot, in the same request (an impersonated transaction cannot be sent
    // again raw: its send fails and it is gone). A refused send is not an error here.
    const resend = this.poolAtSnapshot.get(id) ?? [];
    const settings = this.settingsAtSnapshot.get(id);
    const calls: RpcCall[] = [
      // A way back should `id` turn out spent (see undoSpentRevert), with the settings the
      // batch changes. Taken before the revert, so a successful revert spends it too.
      { method: "evm_snapshot", params: [] },
      { method: "eth_coinbase", params: [] },
      { method: "eth_feeHistory", params: ["0x1", "latest", []] },
      // No block until the pool is emptied: a test that turned automine off through rpc_url
      // and left a transaction waiting would otherwise see it mined into the restored chain
      // the moment automine comes back on, and the fresh snapshot below would keep it.
      ...blockModeCalls(MANUAL),
      { method: "evm_revert", params: [id] },
      { method: "anvil_dropAllTransactions", params: [] },
      // Not part of evm_revert either: without it a restored test's gas prices, ETH balances and
      // the hashes of fee-estimating clients' transactions depend on what ran before it.
      ...(settings?.baseFee === undefined ? [] : [{ method: "anvil_setNextBlockBaseFeePerGas", params: [settings.baseFee] }]),
      ...(settings?.coinbase === undefined ? [] : [{ method: "anvil_setCoinbase", params: [settings.coinbase] }]),
      // The block mode this port keeps (the restored one is set after, when it differs): a
      // mode changed behind its back through rpc_url (anvil_setAutomine) does not outlive a restore.
      ...blockModeCalls(this.mode),
      ...resend.map((raw) => ({ method: "eth_sendRawTransaction", params: [raw] })),
    ];
    // The reverted chain's executor nonce and head are the snapshot's when its pool was empty
    // (nothing resent): then they were read when it was taken; else read them now.
    const known = resend.length === 0 && settings?.nonce !== undefined && settings.head !== undefined ? { nonce: settings.nonce, head: settings.head } : null;
    if (known === null) calls.push({ method: "eth_getTransactionCount", params: [this.executor.address, "pending"] }, { method: "eth_getBlockByNumber", params: ["latest", false] });
    if (snapshotAfter) calls.push({ method: "evm_snapshot", params: [] });
    const outs = await this.rpc.batchInOrder(calls);
    const [wayBack, coinbaseBefore, feesBefore] = outs;
    const reverted = outs[REVERT_AT];
    const snapshot = snapshotAfter ? outs.at(-1) : undefined;
    const [nonce, head] = known === null ? outs.slice(calls.length - (snapshotAfter ? 3 : 2)) : [{ ok: true as const, result: known.nonce }, { ok: true as const, result: known.head }];
    // Anvil refuses a snapshot it no longer has: one an evm_revert sent to it directly spent.
    if (!reverted!.ok || reverted!.result !== true) {
      await this.undoSpentRevert(reverted!, wayBack!, coinbaseBefore!, feesBefore!);
      throw new ChainSnapshotGoneError(id, reverted!.ok ? null : reverted!.error);
    }
    // evm_revert spent `id` and every later snapshot; the fresh one stands for the same state.
    for (const [snap] of this.poolAtSnapshot) if (BigInt(snap) >= BigInt(id)) this.poolAtSnapshot.delete(snap);
    for (const [snap] of this.settingsAtSnapshot) if (BigInt(snap) >= BigInt(id)) this.settingsAtSnapshot.delete(snap);
    if (snapshot?.ok && resend.length > 0) this.poolAtSnapshot.set(snapshot.result as Hex, resend);
    if (snapshot?.ok && settings !== undefined) this.settingsAtSnapshot.set(snapshot.result as Hex, settings);
    this.outstanding.clear();
    this.receipts.clear();
    this.epoch++;
    this.reverts++;
    this.knownHead = 0n;
    this.lastSentHash = null;
    if (!nonce!.ok) throw nonce!.error;
    this.applyNonce(nonce!.result as string);
    this.lastSentNonce = this.nonce - 1;
    this.minedBelow = this.nonce;
    if (!head!.ok) throw head!.error;
    this.applyHead(head!.result as { number: string; baseFeePerGas?: string });
    if (!snapshot) return null;
    if (!snapshot.ok) throw snapshot.error;
    return snapshot.result as Hex;
  }

  /**
   * After evm_revert refused a spent snapshot, undo what the restore's batch did. Anvil
   * refuses in two ways. `false`: it no longer lists the id (it was reverted to), and its
   * head is untouched. An error: it still lists the id, but its state for it is gone (a
   * revert to an earlier one dropped it), and it has already moved its head to the
   * snapshot's block, which is no longer on the chain ("latest" then reads null until a
   * block is mined, and that block drops the blocks after the stale head). Then the chain
   * goes back to the snapshot the batch took first. Either way the rest of the batch ran: the
   * coinbase and next base fee read first are put back, and the pool is emptied again (what
   * the spent snapshot's pool resent must not be mined here) with this port's own waiting
   * transactions sent again. Other senders' transactions that waited in the pool (manual or
   * interval blocks) are gone.
   */
  private async undoSpentRevert(reverted: RpcOutcome, wayBack: RpcOutcome, coinbase: RpcOutcome, fees: RpcOutcome): Promise<void> {
    const calls: RpcCall[] = [];
    const headMoved = !reverted.ok;
    if (headMoved) {
      if (!wayBack.ok) throw new Error(`a refused evm_revert moved Anvil's head, and the snapshot to undo it failed: ${wayBack.error.message}`, { cause: wayBack.error });
      calls.push({ method: "evm_revert", params: [wayBack.result] });
    }
    const baseFee = fees.ok ? (fees.result as { baseFeePerGas?: string[] }).baseFeePerGas?.at(-1) : undefined;
    if (baseFee !== undefined) calls.push({ method: "anvil_setNextBlockBaseFeePerGas", params: [baseFee] });
    if (coinbase.ok) calls.push({ method: "anvil_setCoinbase", params: [coinbase.result] });
    calls.push({ method: "anvil_dropAllTransactions", params: [] });
    for (const tx of [...this.outstanding.values()].sort((a, b) => a.nonce - b.nonce)) calls.push({ method: "eth_sendRawTransaction", params: [tx.raw] });
    const [first] = await this.rpc.batchInOrder(calls);
    if (headMoved && (!first!.ok || first!.result !== true)) throw new Error("a refused evm_revert moved Anvil's head, and the revert to undo it failed too");
  }

  // ------------------------------------------------------------ signing and broadcast

  private async sign(to: Address, data: Hex, gas: bigint, settlement: boolean, batch = false): Promise<SignedTx> {
    const nonce = this.nonce++;
    const { raw, hash } = signEip1559(
      {
        chainId: this.chainId,
        nonce,
        to,
        data: Buffer.from(data.slice(2), "hex"),
        gas,
        maxFeePerGas: maxBig(this.baseFee * 4n, 10n * GWEI) + this.priorityFee,
        maxPriorityFeePerGas: this.priorityFee,
        value: 0n,
      },
      this.executorKey,
    );
    const tx: SignedTx = { hash, raw, nonce, settlement, batch, gas, sentAfter: this.knownHead, sendError: null, polledEpoch: -1 };
    this.queue.push(tx);
    this.queuedChars += raw.length;
    if (this.queuedChars >= (this.roundInPieces ? EARLY_FLUSH_CHARS : FIRST_FLUSH_CHARS)) {
      // A long round: let the node execute this part while the rest is being signed.
      this.closePiece();
      this.roundInPieces = true;
      void this.flush(false).catch(() => undefined);
      await nextTurn();
    } else {
      this.scheduleFlush();
      // Pieces are on their way: give their socket a turn between signatures, so that the
      // upload, the answer and the automine pause/resume around it move on while we sign.
      if (this.roundInPieces) await nextTurn();
    }
    return tx;
  }

  private closePiece(): void {
    this.closedPieces.push(this.queue);
    this.queue = [];
    this.queuedChars = 0;
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    // After the current synchronous run of submits: one request for all of them. A round
    // already in pieces keeps its open piece for its end (a sync), where it is cut.
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush(!this.roundInPieces).catch(() => {
        // errors are recorded per transaction; nothing to surface here
      });
    });
  }

  /** Send the closed pieces in nonce order, one send each, and the piece being signed too when `withOpenPiece`. */
  async flush(withOpenPiece = true): Promise<void> {
    // Cut where the call is, not when an earlier send's answer lets it run: else a piece
    // would hold what was signed while the node answered, and its block with it.
    if (withOpenPiece && this.queue.length > 0) this.closePiece();
    while (this.flushing) await this.flushing;
    if (this.closedPieces.length === 0) return;
    const pieces = this.closedPieces;
    this.closedPieces = [];
    this.flushing = (async () => {
      for (const piece of pieces) await this.send(piece);
    })().finally(() => {
      this.flushing = null;
    });
    await this.flushing;
  }

  /**
   * Flush, and on automine wait until every sent tx is in a block, so a read after
   * a submit sees the chain as the memory port's automine leaves it (mined, head moved on).
   */
  async sync(): Promise<void> {
    await this.flush();
    this.roundInPieces = false;
    if (this.mode.kind === "automine" && this.lastSentNonce >= this.minedBelow) await this.awaitMined();
  }

  private async send(txs: SignedTx[]): Promise<void> {
    if (this.mode.kind !== "automine" || txs.length < 2) return this.sendRequests(txs);
    // Automine mines a block whenever a transaction arrives while the node is idle, and
    // every block recomputes Anvil's whole state root (its in-memory state has no
    // incremental trie), so a burst arriving one by one became dozens of small blocks:
    // ~25 % of Anvil's CPU in a 200-transaction round. Instead, automine is paused while
    // a group that fits one block is sent, and resumed after: resuming mines the group in
    // one block at once. Anything another client sends meanwhile joins that block, or the
    // next if it does not fit (mineWhatOthersLeft).
    for (const group of blockGroups(txs, this.blockGasLimit)) {
      if (!this.ownsAutomine) {
        await this.sendRequests(group);
        continue;
      }
      const paused = await this.pauseAutomine();
      try {
        await this.sendRequests(group);
      } finally {
        // Resume only if no mode change began meanwhile (it sets the node's mode itself).
        if (paused && this.ownsAutomine) {
          await this.rpc.call("evm_setAutomine", [true]).catch(() => undefined);
          this.othersMayWait = true;
        }
      }
    }
  }

  /** Automine is the port's mode and no mode change is on its way: the port may pause and resume it. */
  private get ownsAutomine(): boolean {
    return this.mode.kind === "automine" && this.changingMode === 0;
  }

  /**
   * Pause automine for a group; false if it was not paused. A node a test switched to no
   * mining or to interval blocks through rpc_url is left in that mode (resuming would turn
   * automine on and mine the test's waiting transactions); one that did not answer is not
   * paused either (sendRequests records the failure per transaction).
   */
  private async pauseAutomine(): Promise<boolean> {
    const automining = await this.rpc.call<boolean>("anvil_getAutomine").catch(() => false);
    if (automining !== true) return false;
    return this.rpc.call("evm_setAutomine", [false]).then(
      () => true,
      () => false,
    );
  }

  /**
   * Another client's transaction sent while automine was paused, which did not fit the
   * group's block (a dependent one Anvil estimated at the whole block's gas, say), waits in
   * the pool for a trigger that automine would have given it on arrival: mine it, while
   * blocks keep taking some of what waits. Only while the node still automines: a test may
   * have turned mining off through rpc_url since the round, and its transactions then wait
   * for its own blocks.
   */
  private async mineWhatOthersLeft(): Promise<void> {
    let waiting = Infinity;
    while (this.ownsAutomine) {
      const [automining, pool] = await this.rpc.batch([
        { method: "anvil_getAutomine", params: [] },
        { method: "txpool_inspect", params: [] },
      ]).catch(() => []);
      if (!(automining?.ok && automining.result === true && pool?.ok)) return;
      // A mode change may have begun while the answer was on its way.
      if (!this.ownsAutomine) return;
      // Others' only: the pool may still list our own for a moment after their block (a
      // block mined for them would be an extra one, and the round's layout would differ).
      const now = poolCounts(pool.result as TxPoolInspect, this.executor.address).others;
      if (now === 0 || now >= waiting) return;
      waiting = now;
      await this.rpc.call("evm_mine").catch(() => undefined);
    }
  }

  private async sendRequests(txs: SignedTx[]): Promise<void> {
    // A piece past one request's size goes out as a few size-capped JSON-RPC batches, all
    // in flight at once; the pool orders them by nonce.
    const chunks = requestPieces(txs, rawChars);
    const refusedNonces: number[] = [];
    let transportFailed = false;
    await Promise.all(
      chunks.map(async (chunk) => {
        let outcomes;
        try {
          outcomes = await this.rpc.batch(chunk.map((t) => ({ method: "eth_sendRawTransaction", params: [t.raw] })));
        } catch (e) {
          // The answer was lost (a cut connection, a node that stopped answering), not
          // necessarily the sends: those the node has are sent (refused, a settlement the
          // chain then carries out would count as failed); only the others are refused.
          const cause = (e as { cause?: { message?: string } }).cause?.message;
          const had = await this.rpc.batch(chunk.map((t) => ({ method: "eth_getTransactionByHash", params: [t.hash] }))).catch(() => null);
          chunk.forEach((t, i) => {
            const seen = had?.[i];
            if (seen?.ok && seen.result !== null) this.sent(t);
            else this.refused(t, `BROADCAST_FAILED: ${(e as Error).message}${cause ? ` (${cause})` : ""}`);
          });
          transportFailed = true;
          return;
        }
        outcomes.forEach((out, i) => {
          const t = chunk[i]!;
          if (out.ok) {
            this.sent(t);
          } else {
            this.refused(t, `BROADCAST_FAILED: ${out.error.message}`);
            refusedNonces.push(t.nonce);
          }
        });
      }),
    );
    if (transportFailed) {
      // Unknown which of them reached the pool: count again from the chain.
      await this.resyncNonce().catch(() => undefined);
      return;
    }
    // A refused nonce would hold every later one in the pool forever: fill the gap.
    for (const nonce of refusedNonces.sort((a, b) => a - b)) await this.fillNonceGap(nonce);
  }

  /** `t` is in the node's pool (or mined): its nonce is used, and a settlement's receipt is awaited. */
  private sent(t: SignedTx): void {
    if (t.nonce > this.lastSentNonce) {
      this.lastSentNonce = t.nonce;
      this.lastSentHash = t.hash;
    }
    if (t.settlement) this.outstanding.set(t.hash, t);
  }

  private refused(t: SignedTx, reason: string): void {
    t.sendError = reason;
    if (t.settlement) {
      this.remember(t.hash, { txHash: t.hash, blockNumber: 0n, status: "reverted", revertReason: reason, failedMask: 0n, failures: [] });
    }
  }

  private async fillNonceGap(nonce: number): Promise<void> {
    const fee = maxBig(this.baseFee * 8n, 50n * GWEI);
    const { raw } = signEip1559(
      {
        chainId: this.chainId,
        nonce,
        to: this.executor.address,
        data: new Uint8Array(0),
        gas: 21_000n,
        maxFeePerGas: fee + this.priorityFee * 2n,
        maxPriorityFeePerGas: this.priorityFee * 2n,
        value: 0n,
      },
      this.executorKey,
    );
    try {
      await this.rpc.call("eth_sendRawTransaction", [raw]);
    } catch {
      await this.resyncNonce().catch(() => undefined);
    }
  }

  /**
   * Automine includes every accepted tx at once, but Anvil answers a batch of sends
   * before the block holding them exists. Wait for it, so that after a flush the
   * chain looks as the memory port's automine leaves it (mined, head moved on).
   */
  private async awaitMined(): Promise<void> {
    // Nonce order: once the executor's mined nonce passes the last sent one, every
    // sent tx is in a block. Poll that (a tiny answer), not the receipts. Bounded in
    // time: if the node stopped automining behind our back, reads go on (unmined).
    const target = this.lastSentNonce;
    const deadline = performance.now() + AUTOMINE_WAIT_MS;
    let seen = -1;
    let movedAt = performance.now();
    for (let i = 0; performance.now() < deadline; i++) {
      const mined = Number(BigInt(await this.rpc.call<string>("eth_getTransactionCount", [this.executor.address, "latest"])));
      if (mined > target) break;
      if (mined !== seen) {
        seen = mined;
        movedAt = performance.now();
      } else if (this.mode.kind === "automine" && performance.now() - movedAt > AUTOMINE_STALL_MS) {
        await this.mineStranded();
        movedAt = performance.now();
      }
      // Back off to 2 ms: every poll is a request the busy node must also answer, but a
      // tiny one on another thread than its miner; the round's end is seen sooner.
      await new Promise((r) => setTimeout(r, Math.min(2, 1 + (i >> 2))));
    }
    // Anvil moves the account state a moment before the block (and its receipts and
    // head number) is stored: wait for the last tx's receipt too.
    const lastHash = this.lastSentHash;
    while (lastHash !== null && performance.now() < deadline) {
      const r = await this.rpc.call<unknown>("eth_getTransactionReceipt", [lastHash]);
      if (r !== null) break;
      await new Promise((r) => setTimeout(r, 1));
    }
    this.minedBelow = target + 1;
    if (this.othersMayWait) {
      this.othersMayWait = false;
      await this.mineWhatOthersLeft();
    }
  }

  /**
   * No block for our transactions in AUTOMINE_STALL_MS. Stranded: a group sent with automine
   * paused no longer fitted one block (another client's transaction joined it), and the rest
   * waits in the pool for a trigger; mine it. Or only slow: the node is mining them now (a
   * busy machine), and a block mined meanwhile was an extra, empty one, so block numbers
   * depended on the node's speed. Automine is paused while the pool is read: still in the
   * pool then, nothing else will mine them (unless the node had begun their block just
   * before the pause, a narrow race this leaves).
   */
  private async mineStranded(): Promise<void> {
    const paused = this.ownsAutomine && (await this.pauseAutomine());
    try {
      if (!paused || (await this.ownPending()) > 0) await this.rpc.call("evm_mine").catch(() => undefined);
    } finally {
      if (paused && this.ownsAutomine) await this.rpc.call("evm_setAutomine", [true]).catch(() => undefined);
    }
  }

  /** Our transactions the node's pool holds unmined (as many as it can tell; 1 if it cannot be read, so a stranded round is still mined). */
  private async ownPending(): Promise<number> {
    const pool = await this.rpc.call<TxPoolInspect>("txpool_inspect").catch(() => null);
    return pool === null ? 1 : poolCounts(pool, this.executor.address).own;
  }

  /** One request: every outstanding settlement receipt. */
  private async pollReceipts(): Promise<void> {
    const txs = [...this.outstanding.values()];
    if (txs.length === 0) return;
    const epoch = this.epoch;
    const reverts = this.reverts;
    // The poll gives other work a turn as it goes: afterwards a revert may have made what it
    // read stale (it stops), or another poll may have settled some of its transactions
    // (settle applies a receipt only to a transaction still outstanding).
    const chainGone = () => this.reverts !== reverts;
    // Match batches: their BatchSettled / MatchFailed logs say everything (a few hundred
    // bytes each), so one eth_getLogs replaces the full receipts with their 20
    // MatchSettled logs apiece. Everything else, and any batch without a
    // BatchSettled log (unmined or reverted), is read from its receipt.
    const batches = txs.filter((t) => t.batch);
    const others = txs.filter((t) => !t.batch);
    const from = batches.reduce((m, t) => (t.sentAfter < m ? t.sentAfter : m), batches[0]?.sentAfter ?? 0n);
    const calls: RpcCall[] = [{ method: "eth_getBlockByNumber", params: ["latest", false] }];
    if (batches.length > 0) {
      calls.push({
        method: "eth_getLogs",
        params: [{ address: this.exchange, topics: [[TOPIC_BATCH_SETTLED, TOPIC_MATCH_FAILED]], fromBlock: toQuantity(from), toBlock: "latest" }],
      });
    }
    for (const t of others) calls.push({ method: "eth_getTransactionReceipt", params: [t.hash] });
    const outs = await this.rpc.batch(calls);
    if (chainGone()) return;
    const block = outs[0]!.ok ? (outs[0]!.result as { number: string; baseFeePerGas?: string; gasLimit?: string }) : null;
    if (block?.baseFeePerGas) this.baseFee = BigInt(block.baseFeePerGas);
    if (block?.gasLimit) this.blockGasLimit = BigInt(block.gasLimit);
    if (block) this.noteHead(BigInt(block.number));
    const needReceipt: SignedTx[] = [];
    if (batches.length > 0) {
      const logsOut = outs[1]!;
      const byTx = new Map<string, RawLog[]>();
      if (logsOut.ok) {
        for (const log of logsOut.result as RawLog[]) {
          const k = log.transactionHash.toLowerCase();
          let list = byTx.get(k);
          if (!list) byTx.set(k, (list = []));
          list.push(log);
        }
      }
      for (const [i, t] of batches.entries()) {
        if (i > 0 && i % RECEIPTS_PER_TURN === 0) {
          await nextTurn();
          if (chainGone()) return;
        }
        const logs = byTx.get(t.hash);
        const settledLog = logs?.find((l) => l.topics[0] === TOPIC_BATCH_SETTLED);
        if (logs && settledLog) {
          this.settle(t, parseSettlementReceipt({ transactionHash: t.hash, blockNumber: settledLog.blockNumber, status: "0x1", logs }, this.exchange, null));
        } else needReceipt.push(t);
      }
    }
    const receiptOuts = outs.slice(batches.length > 0 ? 2 : 1);
    let extra: { tx: SignedTx; out: (typeof outs)[number] }[] = others.map((tx, i) => ({ tx, out: receiptOuts[i]! }));
    if (needReceipt.length > 0) {
      const more = await this.rpc.batch(needReceipt.map((t) => ({ method: "eth_getTransactionReceipt", params: [t.hash] })));
      if (chainGone()) return;
      extra = extra.concat(needReceipt.map((tx, i) => ({ tx, out: more[i]! })));
    }
    const unmined: SignedTx[] = [];
    for (const [i, { tx, out }] of extra.entries()) {
      if (i > 0 && i % RECEIPTS_PER_TURN === 0) {
        await nextTurn();
        if (chainGone()) return;
      }
      if (!out.ok || out.result === null) {
        tx.polledEpoch = epoch;
        if (out.ok && block !== null && BigInt(block.number) > tx.sentAfter) unmined.push(tx);
        continue;
      }
      const raw = out.result as RawReceipt;
      const reason = raw.status === "0x1" ? null : await this.revertReasonOf(raw);
      if (chainGone()) return;
      this.settle(tx, parseSettlementReceipt(raw, this.exchange, reason, tx.batch));
    }
    if (unmined.length > 0 && this.epoch === epoch) await this.resendVanished(unmined);
  }

  /**
   * Transactions still without a receipt after a block was mined above the head they were
   * sent at: normally they wait in the pool for room in a later block. One that is neither
   * there nor mined was taken out of the pool behind this port's back (`anvil_dropTransaction`
   * or `anvil_dropAllTransactions` through rpc_url): it is sent again as it was signed, or its
   * settlement would wait for good and the nonces after it with it. A send Anvil refuses
   * (its nonce was used meanwhile) is left to the next poll.
   */
  private async resendVanished(txs: SignedTx[]): Promise<void> {
    const seen = await this.rpc.batch(txs.map((t) => ({ method: "eth_getTransactionByHash", params: [t.hash] })));
    const vanished = txs.filter((_, i) => seen[i]!.ok && (seen[i] as { result: unknown }).result === null).sort((a, b) => a.nonce - b.nonce);
    if (vanished.length === 0) return;
    await Promise.all(requestPieces(vanished, rawChars).map((chunk) => this.rpc.batch(chunk.map((t) => ({ method: "eth_sendRawTransaction", params: [t.raw] })))));
  }

  private noteHead(head: bigint): void {
    if (head > this.knownHead) this.knownHead = head;
  }

  /** Only a transaction still outstanding: a concurrent poll may have settled it, a revert forgotten it. */
  private settle(tx: SignedTx, receipt: BatchReceipt): void {
    if (this.outstanding.get(tx.hash) !== tx) return;
    this.outstanding.delete(tx.hash);
    this.remember(tx.hash, receipt);
  }

  /** Cache a final receipt; the oldest go first past the cap (they can be fetched again). */
  private remember(hash: string, receipt: BatchReceipt): void {
    this.receipts.set(hash, receipt);
    if (this.receipts.size > RECEIPT_CACHE_MAX) this.receipts.delete(this.receipts.keys().next().value!);
  }

  /** A transaction this port is not tracking (evicted, or sent by another port instance). */
  private async fetchReceipt(hash: Hex): Promise<BatchReceipt | null> {
    const raw = await this.rpc.call<RawReceipt | null>("eth_getTransactionReceipt", [hash]);
    if (raw === null) return null;
    const receipt = parseSettlementReceipt(raw, this.exchange, raw.status === "0x1" ? null : await this.revertReasonOf(raw));
    this.remember(hash, receipt);
    return receipt;
  }

  /** The whole-transaction revert string, from a call trace (exact even inside a busy block). */
  private async revertReasonOf(raw: RawReceipt): Promise<string | null> {
    try {
      const trace = await this.rpc.call<{ output?: string; revertReason?: string }>("debug_traceTransaction", [
        raw.transactionHash,
        { tracer: "callTracer", tracerConfig: { onlyTopCall: true } },
      ]);
      const reason = typeof trace.revertReason === "string" && trace.revertReason.length > 0 ? trace.revertReason : decodeRevertData(trace.output);
      if (reason !== null) return reason;
    } catch {
      // a node without debug_traceTransaction: replay below
    }
    return this.replayRevertReason(raw);
  }

  /**
   * Fallback: replay the call on the state before its block (eth_call reverts with the
   * reason). Exact when it was the block's only tx, as under automine.
   */
  private async replayRevertReason(raw: RawReceipt): Promise<string | null> {
    try {
      const tx = await this.rpc.call<{ from: string; to: string; input: string; gas: string } | null>("eth_getTransactionByHash", [raw.transactionHash]);
      if (!tx) return null;
      const parent = toQuantity(BigInt(raw.blockNumber) - 1n);
      await this.rpc.call("eth_call", [{ from: tx.from, to: tx.to, data: tx.input, gas: tx.gas }, parent]);
      return null;
    } catch (e) {
      return e instanceof RpcError ? decodeRevertData(e.data) : null;
    }
  }

  private async resyncNonce(): Promise<void> {
    this.applyNonce(await this.rpc.call<string>("eth_getTransactionCount", [this.executor.address, "pending"]));
  }

  /** The executor's pending transaction count, as eth_getTransactionCount answers it. */
  private applyNonce(count: string): void {
    this.nonce = Number(BigInt(count));
    // Whatever the node holds is below the new count; never wait for a nonce it will not mine.
    if (this.lastSentNonce >= this.nonce) this.lastSentNonce = this.nonce - 1;
    if (this.minedBelow > this.nonce) this.minedBelow = this.nonce;
  }

  private applyHead(block: { number: string; baseFeePerGas?: string; gasLimit?: string }): void {
    if (block.baseFeePerGas) this.baseFee = BigInt(block.baseFeePerGas);
    if (block.gasLimit) this.blockGasLimit = BigInt(block.gasLimit);
    this.noteHead(BigInt(block.number));
  }

  private ethCall(to: Address, data: Hex): Promise<Hex> {
    return this.rpc.call<Hex>("eth_call", [{ to, data }, "latest"]);
  }
}

const ERC1271_ABI = [
  {
    type: "function",
    name: "isValidSignature",
    stateMutability: "view",
    inputs: [
      { name: "hash", type: "bytes32" },
      { name: "signature", type: "bytes" },
    ],
    outputs: [{ name: "", type: "bytes4" }],
  },
] as const;

/** The contract's Match, with signatures in the form ecrecover accepts (v 27/28). */
function contractMatch(m: ChainMatch): ChainMatch {
  return {
    maker: m.maker,
    makerSignature: toContractSignature(m.makerSignature),
    taker: m.taker,
    takerSignature: toContractSignature(m.takerSignature),
    makerAmount: m.makerAmount,
    takerAmount: m.takerAmount,
  };
}

/** The Anvil calls that put the node in `mode` (refuses an interval that is not whole seconds >= 1). */
export const MANUAL: BlockMode = { kind: "manual" };

/** The most blocks one mine call takes (POST /__fakex/mine's bound too). */
export const MAX_MINE_BLOCKS = 100_000;
/** Where a restore's batch has its evm_revert: after the way back, the coinbase and fee reads, and the two calls that stop mining. */
const REVERT_AT = 3 + blockModeCalls(MANUAL).length;

/** The JSON-RPC calls that put Anvil in `mode`. */
export function blockModeCalls(mode: BlockMode): RpcCall[] {
  const kind = (mode as { kind?: unknown } | null)?.kind;
  if (kind !== "automine" && kind !== "interval" && kind !== "manual") throw new RangeError(`block mode kind must be automine, interval or manual, got ${JSON.stringify(kind)}`);
  if (mode.kind === "interval" && !(Number.isInteger(mode.seconds) && mode.seconds >= 1)) {
    throw new RangeError(`interval mining needs whole seconds >= 1, got ${mode.seconds}`);
  }
  if (mode.kind !== "interval" && (mode as { seconds?: unknown }).seconds !== undefined) throw new RangeError(`seconds is for interval mode only, got ${JSON.stringify(mode)}`);
  // Turning automine on replaces any mode, interval mining included (checked in
  // test/fixtures/snapshot-gaps.test.ts); turning it off leaves an interval running.
  return mode.kind === "automine"
    ? [{ method: "evm_setAutomine", params: [true] }]
    : mode.kind === "interval"
      ? [{ method: "evm_setAutomine", params: [false] }, { method: "evm_setIntervalMining", params: [mode.seconds] }]
      : [{ method: "evm_setAutomine", params: [false] }, { method: "evm_setIntervalMining", params: [0] }];
}

function maxBig(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

function decodeString(data: Hex): string {
  return decodeAbiParameters([{ type: "string" }], data)[0];
}

/** eip712Domain() → (fields, name, version, chainId, verifyingContract, salt, extensions). */
function decodeEip712Domain(data: Hex): { name: string; version: string } {
  const [, name, version] = decodeAbiParameters(
    [{ type: "bytes1" }, { type: "string" }, { type: "string" }, { type: "uint256" }, { type: "address" }, { type: "bytes32" }, { type: "uint256[]" }],
    data,
  );
  return { name, version };
}

/** A transaction's share of a request: its raw text and the call around it. */
const rawChars = (t: SignedTx): number => t.raw.length + 64;

/** Consecutive runs of transactions whose gas limits together fit in one block. */
function blockGroups(txs: SignedTx[], blockGasLimit: bigint): SignedTx[][] {
  const groups: SignedTx[][] = [];
  let gas = blockGasLimit + 1n;
  for (const t of txs) {
    if (gas + t.gas > blockGasLimit) {
      groups.push([]);
      gas = 0n;
    }
    groups[groups.length - 1]!.push(t);
    gas += t.gas;
  }
  return groups;
}

/** txpool_inspect's answer: per sender, per nonce, a summary line. */
type TxPoolInspect = { pending?: Record<string, Record<string, string>> };

/** The pending transactions of `executor` and of every other sender in a txpool_inspect answer. */
function poolCounts(pool: TxPoolInspect, executor: Address): { own: number; others: number } {
  const counts = { own: 0, others: 0 };
  for (const [sender, byNonce] of Object.entries(pool.pending ?? {})) {
    counts[sender.toLowerCase() === executor.toLowerCase() ? "own" : "others"] += Object.keys(byNonce).length;
  }
  return counts;
}
