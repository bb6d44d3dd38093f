// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {Vault} from "./Vault.sol";
import {Signatures} from "./Signatures.sol";

/// @notice Settlement contract of the exchange: deposits, signed-order matching
/// (single, best-effort batch, atomic batch), dual-signature instant withdrawal
/// and the delayed emergency withdrawal. Funds live in the Vault; this contract
/// only moves ledger balances there.
///
/// Every rejection is a short UPPER_SNAKE revert string so that a failed match
/// inside a batch surfaces a readable, allowlistable reason in MatchFailed.
contract Exchange is EIP712, AccessControl, Pausable, ReentrancyGuardTransient {
    bytes32 public constant EXECUTOR_ROLE = keccak256("EXECUTOR_ROLE");
    /// @dev Held by the Router so it can settle maker legs of a swap intent.
    bytes32 public constant ROUTER_ROLE = keccak256("ROUTER_ROLE");

    bytes32 public constant ORDER_TYPEHASH = keccak256(
        "Order(address user,uint48 expiration,uint48 feeBps,address recipient,address fromToken,address toToken,uint256 fromAmount,uint256 toAmount,uint256 initialDepositAmount,uint256 uuid)"
    );
    bytes32 public constant WITHDRAW_INTENT_TYPEHASH = keccak256(
        "WithdrawIntent(address user,address[] tokens,uint256[] amounts,address recipient,uint256 deadline,uint256 uuid)"
    );

    uint256 public constant BPS_DENOMINATOR = 10_000;
    uint256 public constant MAX_FEE_BPS = 1_000;
    uint256 public constant MAX_BATCH_SIZE = 20;
    /// @dev Distinct orders a batch may carry: at most two per match.
    uint256 public constant MAX_BATCH_ORDERS = 2 * MAX_BATCH_SIZE;
    uint256 public constant MAX_ORDER_LIFETIME = 365 days;
    uint256 public constant MAX_WITHDRAW_TOKENS = 20;

    struct Order {
        address user;
        uint48 expiration;
        uint48 feeBps;
        address recipient;
        address fromToken;
        address toToken;
        uint256 fromAmount;
        uint256 toAmount;
        uint256 initialDepositAmount;
        uint256 uuid;
    }

    /// @dev makerAmount: maker's fromToken given; takerAmount: taker's fromToken given.
    struct Match {
        Order maker;
        bytes makerSignature;
        Order taker;
        bytes takerSignature;
        uint256 makerAmount;
        uint256 takerAmount;
    }

    /// @dev One pair of a compact batch: `maker` and `taker` index the batch's distinct
    /// orders (and their signatures), so an order that fills against many counterparties
    /// (a sweeping taker) travels and is hashed once per transaction.
    struct Fill {
        uint256 maker;
        uint256 taker;
        uint256 makerAmount;
        uint256 takerAmount;
    }

    /// @dev A pair resolved for settlement: both digests, both amounts, its batch position.
    struct Pair {
        bytes32 h0;
        bytes32 h1;
        uint256 makerAmount;
        uint256 takerAmount;
        uint256 index;
    }

    struct WithdrawIntent {
        address user;
        address[] tokens;
        uint256[] amounts;
        address recipient;
        uint256 deadline;
        uint256 uuid;
    }

    /// @dev Everything a settled match actually moved, for the engine to reconcile.
    /// makerToken = what the maker gave; takerToken = what the taker gave.
    struct Settlement {
        address maker;
        address taker;
        address makerToken;
        address takerToken;
        uint256 makerAmount; // maker's fill (makerToken debited from the maker)
        uint256 takerAmount; // taker's fill (counts towards the taker order's filled amount)
        uint256 takerPaid; // takerToken actually debited from the taker (takerAmount - takerSpreadShare)
        uint256 makerReceived; // takerToken paid out to the maker, net of fee
        uint256 takerReceived; // makerToken paid out to the taker, net of fee
        uint256 makerFee; // in takerToken
        uint256 takerFee; // in makerToken
        uint256 spread; // takerAmount minus what the maker's price required, in takerToken
        uint256 makerSpreadShare;
        uint256 takerSpreadShare; // refunded to the taker (never debited)
        uint256 protocolSpreadShare;
    }

    struct EmergencyRequest {
        uint256 amount;
        uint256 blockNumber;
    }

    Vault public immutable vault;
    address public feeRecipient;
    uint256 public spreadMakerBps = 2_500;
    uint256 public spreadTakerBps = 2_500;
    /// @dev Live values. Adjustable by the admin only because a local chain cannot mine
    /// thousands of blocks quickly; deployments keep these defaults unless asked otherwise.
    uint256 public emergencyDelayBlocks = 7_200;
    uint256 public emergencyLapseBlocks = 14_400;

    mapping(address token => bool) private _whitelisted;
    mapping(bytes32 orderHash => uint256) public filled;
    mapping(bytes32 pairKey => string) private _matchFaults;
    /// @dev Number of pairs with a fault set: lets every match skip the fault lookup (a
    /// cold hash-keyed read) while the test hook is unused, as it is in production.
    uint256 private _activeFaults;
    mapping(address user => mapping(uint256 uuid => bool)) public withdrawUuidUsed;
    mapping(address user => mapping(address token => EmergencyRequest)) public emergencyRequests;

    event Deposit(address indexed owner, address indexed token, uint256 amount);
    event Withdrawal(address indexed user, address indexed token, uint256 amount, address to);
    event InstantWithdraw(address indexed user, uint256 indexed uuid, address executor, address recipient);
    event EmergencyWithdrawRequested(address indexed user, address indexed token, uint256 amount, uint256 blockNumber);
    event EmergencyWithdrawn(address indexed user, address indexed token, uint256 amount);
    event MatchSettled(bytes32 indexed orderHash0, bytes32 indexed orderHash1, uint256 batchIndex, Settlement settlement);
    event MatchFailed(bytes32 orderHash0, bytes32 orderHash1, string reason, uint256 batchIndex);
    event BatchSettled(uint256 count, uint256 failedMask);
    event TokenWhitelisted(address indexed token, bool whitelisted);
    event MatchFaultSet(bytes32 orderHash0, bytes32 orderHash1, string reason);
    event MatchFaultCleared(bytes32 orderHash0, bytes32 orderHash1);
    event FeeRecipientSet(address feeRecipient);
    event SpreadSplitSet(uint256 makerBps, uint256 takerBps);
    event EmergencyWithdrawBlocksSet(uint256 delayBlocks, uint256 lapseBlocks);

    constructor(string memory name, address admin, address vault_, address executor, address feeRecipient_)
        EIP712(name, "1")
    {
        require(admin != address(0) && vault_ != address(0) && feeRecipient_ != address(0), "ZERO_ADDRESS");
        vault = Vault(vault_);
        feeRecipient = feeRecipient_;
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        if (executor != address(0)) _grantRole(EXECUTOR_ROLE, executor);
    }

    // ---------------------------------------------------------------- admin

    function setTokenWhitelisted(address token, bool whitelisted) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _whitelisted[token] = whitelisted;
        emit TokenWhitelisted(token, whitelisted);
    }

    function isTokenWhitelisted(address token) external view returns (bool) {
        return _whitelisted[token];
    }

    function pause() external onlyRole(DEFAULT_ADMIN_ROLE) {
        _pause();
    }

    function unpause() external onlyRole(DEFAULT_ADMIN_ROLE) {
        _unpause();
    }

    function setFeeRecipient(address feeRecipient_) external onlyRole(DEFAULT_ADMIN_ROLE) {
        require(feeRecipient_ != address(0), "ZERO_ADDRESS");
        feeRecipient = feeRecipient_;
        emit FeeRecipientSet(feeRecipient_);
    }

    /// @notice Shares of a positive spread for maker and taker; the protocol keeps the rest.
    function setSpreadSplit(uint256 makerBps, uint256 takerBps) external onlyRole(DEFAULT_ADMIN_ROLE) {
        require(makerBps + takerBps <= BPS_DENOMINATOR, "BAD_SPREAD_SPLIT");
        spreadMakerBps = makerBps;
        spreadTakerBps = takerBps;
        emit SpreadSplitSet(makerBps, takerBps);
    }

    function setEmergencyWithdrawBlocks(uint256 delayBlocks, uint256 lapseBlocks) external onlyRole(DEFAULT_ADMIN_ROLE) {
        require(delayBlocks > 0 && lapseBlocks >= delayBlocks, "BAD_EMERGENCY_BLOCKS");
        emergencyDelayBlocks = delayBlocks;
        emergencyLapseBlocks = lapseBlocks;
        emit EmergencyWithdrawBlocksSet(delayBlocks, lapseBlocks);
    }

    // ---------------------------------------------------------------- hashing

    function domainSeparator() external view returns (bytes32) {
        return _domainSeparatorV4();
    }

    /// @notice EIP-712 digest of any struct hash under this exchange's domain (the Router's Intent uses it).
    function hashTypedData(bytes32 structHash) external view returns (bytes32) {
        return _hashTypedDataV4(structHash);
    }

    function orderHash(Order calldata order) public view returns (bytes32) {
        return _hashTypedDataV4(keccak256(abi.encode(ORDER_TYPEHASH, order)));
    }

    /// @dev orderHash of a decoded order. A memory Order is its 10 ABI words back to back
    /// (decoding checked them), so abi.encode(ORDER_TYPEHASH, order) is those words behind
    /// the type hash: hashed in place, with the word before the struct saved and restored.
    function _orderHash(Order memory order) private view returns (bytes32) {
        bytes32 typeHash = ORDER_TYPEHASH;
        bytes32 structHash;
        assembly ("memory-safe") {
            let before := sub(order, 0x20)
            let saved := mload(before)
            mstore(before, typeHash)
            structHash := keccak256(before, 0x160)
            mstore(before, saved)
        }
        return _hashTypedDataV4(structHash);
    }

    function withdrawIntentHash(WithdrawIntent calldata intent) public view returns (bytes32) {
        // EIP-712 arrays: keccak of the concatenated 32-byte words (encodePacked pads array elements).
        bytes32 structHash = keccak256(
            abi.encode(
                WITHDRAW_INTENT_TYPEHASH,
                intent.user,
                keccak256(abi.encodePacked(intent.tokens)),
                keccak256(abi.encodePacked(intent.amounts)),
                intent.recipient,
                intent.deadline,
                intent.uuid
            )
        );
        return _hashTypedDataV4(structHash);
    }

    // ---------------------------------------------------------------- deposits

    function depositFund(address token, address owner, uint256 value) external whenNotPaused nonReentrant {
        _checkDeposit(token, owner, value);
        _deposit(token, owner, value);
    }

    /// @notice Deposit with an ERC-2612 permit whose spender is the vault. The permit is
    /// skipped when the allowance already covers the deposit, and a failing permit is
    /// swallowed: the transfer then decides (ALLOWANCE_INSUFFICIENT if it does not cover).
    function depositFundWithPermit(
        address token,
        address owner,
        uint256 permitAmount,
        uint256 depositAmount,
        uint256 deadline,
        bytes calldata sig
    ) external whenNotPaused nonReentrant {
        _checkDeposit(token, owner, depositAmount);
        if (IERC20(token).allowance(owner, address(vault)) < depositAmount) {
            _tryPermit(token, owner, address(vault), permitAmount, deadline, sig);
        }
        _deposit(token, owner, depositAmount);
    }

    function _checkDeposit(address token, address owner, uint256 value) private view {
        require(msg.sender == owner, "NOT_OWNER");
        require(_whitelisted[token], "TOKEN_NOT_WHITELISTED");
        require(value > 0, "ZERO_AMOUNT");
    }

    function _deposit(address token, address owner, uint256 value) private {
        vault.pullDeposit(token, owner, value);
        emit Deposit(owner, token, value);
    }

    function _tryPermit(
        address token,
        address owner,
        address spender,
        uint256 value,
        uint256 deadline,
        bytes calldata sig
    ) private {
        (bool ok, uint8 v, bytes32 r, bytes32 s) = Signatures.split(sig);
        if (!ok) return;
        try IERC20Permit(token).permit(owner, spender, value, deadline, v, r, s) {} catch {}
    }

    // ---------------------------------------------------------------- matching

    function matchOrders(Match calldata m) external onlyRole(EXECUTOR_ROLE) whenNotPaused nonReentrant {
        Pair memory p = Pair(orderHash(m.maker), orderHash(m.taker), m.makerAmount, m.takerAmount, 0);
        _settleEither(m.maker, m.makerSignature, m.taker, m.takerSignature, p);
    }

    /// @notice Best effort: each fill runs in its own call frame; a failing fill sets
    /// bit i of the returned mask and emits MatchFailed with its revert reason, the rest settle.
    /// `orders[k]` is signed by `signatures[k]`; fills name their two orders by index. A fill
    /// whose index is out of range fails alone with BAD_ORDER_INDEX (its missing side's hash 0).
    function matchOrdersBatch(Order[] calldata orders, bytes[] calldata signatures, Fill[] calldata fills)
        external
        onlyRole(EXECUTOR_ROLE)
        whenNotPaused
        nonReentrant
        returns (uint256 failedMask)
    {
        uint256 n = _checkBatchSize(fills.length);
        (Order[] memory loaded, bytes32[] memory hashes) = _loadBatchOrders(orders, signatures);
        for (uint256 i = 0; i < n; ++i) {
            if (!_trySettleAt(loaded, signatures, fills[i], hashes, i)) failedMask |= (uint256(1) << i);
        }
        emit BatchSettled(n, failedMask);
    }

    /// @notice All or nothing: any failing fill (or a bad index) reverts the whole batch with its reason.
    function matchOrdersBatchAtomic(Order[] calldata orders, bytes[] calldata signatures, Fill[] calldata fills)
        external
        onlyRole(EXECUTOR_ROLE)
        whenNotPaused
        nonReentrant
    {
        uint256 n = _checkBatchSize(fills.length);
        (Order[] memory loaded, bytes32[] memory hashes) = _loadBatchOrders(orders, signatures);
        for (uint256 i = 0; i < n; ++i) {
            Fill calldata f = fills[i];
            (bool ok, Pair memory p) = _resolve(hashes, f, i);
            require(ok, "BAD_ORDER_INDEX");
            _settleIndexed(loaded, signatures, f, p);
        }
        emit BatchSettled(n, 0);
    }

    /// @dev External only so the batch can wrap each fill in try/catch; callable by this contract alone.
    function settleFillFromBatch(
        Order calldata maker,
        bytes calldata makerSignature,
        Order calldata taker,
        bytes calldata takerSignature,
        Pair calldata p
    ) external {
        require(msg.sender == address(this), "ONLY_SELF");
        _settleMatch(maker, makerSignature, taker, takerSignature, p);
    }

    /// @dev One fill of a best-effort batch; false (after MatchFailed) when it did not settle.
    function _trySettleAt(Order[] memory orders, bytes[] calldata signatures, Fill calldata f, bytes32[] memory hashes, uint256 i)
        private
        returns (bool)
    {
        (bool ok, Pair memory p) = _resolve(hashes, f, i);
        if (!ok) {
            emit MatchFailed(p.h0, p.h1, "BAD_ORDER_INDEX", i);
            return false;
        }
        return _trySettle(orders[f.maker], signatures[f.maker], orders[f.taker], signatures[f.taker], p);
    }

    function _trySettle(Order memory mk, bytes calldata mkSig, Order memory tk, bytes calldata tkSig, Pair memory p) private returns (bool) {
        if (_settleFast(mk, mkSig, tk, tkSig, p)) return true;
        try this.settleFillFromBatch(mk, mkSig, tk, tkSig, p) {
            return true;
        } catch Error(string memory reason) {
            emit MatchFailed(p.h0, p.h1, reason, p.index);
        } catch Panic(uint256) {
            emit MatchFailed(p.h0, p.h1, "PANIC", p.index);
        } catch {
            emit MatchFailed(p.h0, p.h1, "UNKNOWN_REVERT", p.index);
        }
        return false;
    }

    function _settleIndexed(Order[] memory orders, bytes[] calldata signatures, Fill calldata f, Pair memory p) private {
        _settleEither(orders[f.maker], signatures[f.maker], orders[f.taker], signatures[f.taker], p);
    }

    /// @dev The batch's orders decoded once, and each one's digest computed once.
    function _loadBatchOrders(Order[] calldata orders, bytes[] calldata signatures)
        private
        view
        returns (Order[] memory loaded, bytes32[] memory hashes)
    {
        require(orders.length == signatures.length, "LENGTH_MISMATCH");
        require(orders.length <= MAX_BATCH_ORDERS, "TOO_MANY_ORDERS");
        loaded = orders;
        hashes = new bytes32[](loaded.length);
        for (uint256 k = 0; k < loaded.length; ++k) hashes[k] = _orderHash(loaded[k]);
    }

    /// @dev ok = both indices name an order; a side out of range reports hash 0.
    function _resolve(bytes32[] memory hashes, Fill calldata f, uint256 index) private pure returns (bool ok, Pair memory p) {
        uint256 count = hashes.length;
        bool makerIn = f.maker < count;
        bool takerIn = f.taker < count;
        p = Pair(makerIn ? hashes[f.maker] : bytes32(0), takerIn ? hashes[f.taker] : bytes32(0), f.makerAmount, f.takerAmount, index);
        ok = makerIn && takerIn;
    }

    function _checkBatchSize(uint256 n) private pure returns (uint256) {
        require(n > 0, "EMPTY_BATCH");
        require(n <= MAX_BATCH_SIZE, "BATCH_TOO_LARGE");
        return n;
    }

    // ---------------------------------------------------------------- fault hook

    /// @notice Test hook: makes the match of this order pair revert with `reason`, a genuine
    /// EVM revert that a batch catches like any other. Executor only.
    function setMatchFault(bytes32 orderHash0, bytes32 orderHash1, string calldata reason)
        external
        onlyRole(EXECUTOR_ROLE)
    {
        require(bytes(reason).length > 0, "EMPTY_REASON");
        bytes32 key = _pairKey(orderHash0, orderHash1);
        if (bytes(_matchFaults[key]).length == 0) ++_activeFaults;
        _matchFaults[key] = reason;
        emit MatchFaultSet(orderHash0, orderHash1, reason);
    }

    function clearMatchFault(bytes32 orderHash0, bytes32 orderHash1) external onlyRole(EXECUTOR_ROLE) {
        bytes32 key = _pairKey(orderHash0, orderHash1);
        if (bytes(_matchFaults[key]).length != 0) {
            --_activeFaults;
            delete _matchFaults[key];
        }
        emit MatchFaultCleared(orderHash0, orderHash1);
    }

    function matchFault(bytes32 orderHash0, bytes32 orderHash1) external view returns (string memory) {
        return _matchFaults[_pairKey(orderHash0, orderHash1)];
    }

    function _pairKey(bytes32 a, bytes32 b) private pure returns (bytes32) {
        return keccak256(abi.encode(a, b));
    }

    function _revertIfFaulted(bytes32 h0, bytes32 h1) private view {
        if (_activeFaults == 0) return;
        string memory reason = _matchFaults[_pairKey(h0, h1)];
        if (bytes(reason).length > 0) revert(reason);
    }

    // ---------------------------------------------------------------- settlement internals

    /// @dev The fast path when it applies, else the reverting path (whose revert is the answer).
    function _settleEither(Order memory mk, bytes calldata mkSig, Order memory tk, bytes calldata tkSig, Pair memory p) private {
        if (!_settleFast(mk, mkSig, tk, tkSig, p)) _settleMatch(mk, mkSig, tk, tkSig, p);
    }

    /// @dev The reference path: every rule in order, reverting with the first one broken.
    /// A batch runs it in its own call frame, so a failure leaves no partial effects.
    function _settleMatch(
        Order memory mk,
        bytes calldata makerSignature,
        Order memory tk,
        bytes calldata takerSignature,
        Pair memory p
    ) private {
        _revertIfFaulted(p.h0, p.h1);
        require(p.h0 != p.h1, "SAME_ORDER");
        require(mk.fromToken == tk.toToken && mk.toToken == tk.fromToken, "TOKEN_MISMATCH");
        _takeOrder(mk, makerSignature, p.h0, p.makerAmount);
        _takeOrder(tk, takerSignature, p.h1, p.takerAmount);
        (bool priced, Settlement memory s) = _price(mk, tk, p.makerAmount, p.takerAmount);
        require(priced, "PRICE_MISMATCH");
        // One vault call for the whole ledger side: maker debit, taker debit, then credits.
        vault.settleMatch(_ledgerOf(s));
        _sendToRecipient(s.maker, mk.recipient, s.takerToken, s.makerReceived);
        _sendToRecipient(s.taker, tk.recipient, s.makerToken, s.takerReceived);
        emit MatchSettled(p.h0, p.h1, p.index, s);
    }

    /// @dev Settles a fill in the caller's frame when it is certain to succeed with nothing
    /// but ledger effects: no fault hook set, both signatures by ECDSA (or not due), no
    /// initial deposit due, both recipients zero, every amount below 2^128 (so no
    /// arithmetic can overflow) and the vault covering both debits. It decides before it
    /// writes: on false nothing changed, and the fill takes the reference path, which
    /// then gives the exact outcome (and reason) it always did. Same results when true.
    function _settleFast(Order memory mk, bytes calldata mkSig, Order memory tk, bytes calldata tkSig, Pair memory p)
        private
        returns (bool)
    {
        if (_activeFaults != 0 || p.h0 == p.h1) return false;
        if (mk.fromToken != tk.toToken || mk.toToken != tk.fromToken) return false;
        if (mk.recipient != address(0) || tk.recipient != address(0)) return false;
        (bool makerOk, uint256 makerDone) = _orderFastOk(mk, mkSig, p.h0, p.makerAmount);
        if (!makerOk) return false;
        (bool takerOk, uint256 takerDone) = _orderFastOk(tk, tkSig, p.h1, p.takerAmount);
        if (!takerOk) return false;
        (bool priced, Settlement memory s) = _priceFast(mk, tk, p.makerAmount, p.takerAmount);
        if (!priced || !_vaultTrySettle(s)) return false;
        filled[p.h0] = makerDone + p.makerAmount;
        filled[p.h1] = takerDone + p.takerAmount;
        _emitMatchSettled(p, s);
        return true;
    }

    /// @dev _takeOrder's rules as a yes/no without effects, for the fast path; `done` is the
    /// order's filled amount so far. Stricter where the fast path cannot follow: amounts
    /// of 2^128 or more, an initial deposit due, a signature that is not plain ECDSA.
    function _orderFastOk(Order memory o, bytes calldata sig, bytes32 digest, uint256 amount)
        private
        view
        returns (bool ok, uint256 done)
    {
        uint256 fromAmount = o.fromAmount;
        if (fromAmount > type(uint128).max || o.toAmount > type(uint128).max) return (false, 0);
        done = filled[digest];
        // done <= fromAmount always holds (every fill checks it), so no underflow here.
        if (amount == 0 || amount > fromAmount - done || o.expiration <= block.timestamp) return (false, done);
        if (done == 0) {
            if (o.toAmount == 0 || o.initialDepositAmount != 0) return (false, done);
            if (o.expiration > block.timestamp + MAX_ORDER_LIFETIME || o.feeBps > MAX_FEE_BPS) return (false, done);
            if (o.fromToken == o.toToken || !_whitelisted[o.fromToken] || !_whitelisted[o.toToken]) return (false, done);
            if (!Signatures.isValidEcdsa(o.user, digest, sig)) return (false, done);
        }
        return (true, done);
    }

    /// @dev Vault.trySettleMatch(MatchLedger) called with a hand-built argument block: the
    /// generic struct encoder costs more EVM steps than the ledger work itself, and this
    /// runs once per fill. Layout: selector, then the 11 static words of MatchLedger.
    function _vaultTrySettle(Settlement memory s) private returns (bool ok) {
        address target = address(vault);
        bytes4 selector = Vault.trySettleMatch.selector;
        address protocol = feeRecipient;
        uint256 inTaker = s.makerFee + s.protocolSpreadShare;
        assembly ("memory-safe") {
            let ptr := mload(0x40)
            mstore(ptr, selector)
            mstore(add(ptr, 0x04), mload(s)) // maker
            mstore(add(ptr, 0x24), mload(add(s, 0x20))) // taker
            mstore(add(ptr, 0x44), mload(add(s, 0x40))) // makerToken
            mstore(add(ptr, 0x64), mload(add(s, 0x60))) // takerToken
            mstore(add(ptr, 0x84), mload(add(s, 0x80))) // makerDebit = makerAmount
            mstore(add(ptr, 0xa4), mload(add(s, 0xc0))) // takerDebit = takerPaid
            mstore(add(ptr, 0xc4), mload(add(s, 0xe0))) // makerCredit = makerReceived
            mstore(add(ptr, 0xe4), mload(add(s, 0x100))) // takerCredit = takerReceived
            mstore(add(ptr, 0x104), protocol)
            mstore(add(ptr, 0x124), inTaker) // protocolInTakerToken
            mstore(add(ptr, 0x144), mload(add(s, 0x140))) // protocolInMakerToken = takerFee
            // Scratch only: the free-memory pointer is not moved, the next fill reuses it.
            // Separate statements: Yul evaluates arguments right to left, so a returndatasize()
            // beside the call would read the previous call's return data.
            let success := call(gas(), target, 0, ptr, 0x164, 0, 0x20)
            ok := and(and(success, gt(returndatasize(), 0x1f)), eq(mload(0), 1))
        }
    }

    function _ledgerOf(Settlement memory s) private view returns (Vault.MatchLedger memory) {
        return Vault.MatchLedger({
            maker: s.maker,
            taker: s.taker,
            makerToken: s.makerToken,
            takerToken: s.takerToken,
            makerDebit: s.makerAmount,
            takerDebit: s.takerPaid,
            makerCredit: s.makerReceived,
            takerCredit: s.takerReceived,
            protocol: feeRecipient,
            protocolInTakerToken: s.makerFee + s.protocolSpreadShare,
            protocolInMakerToken: s.takerFee
        });
    }

    /// @dev After the vault credited `owner`: a non-zero recipient gets the tokens sent out.
    function _sendToRecipient(address owner, address recipient, address token, uint256 amount) private {
        if (amount == 0 || recipient == address(0)) return;
        vault.withdrawTo(owner, token, amount, recipient);
        emit Withdrawal(owner, token, amount, recipient);
    }

    /// @dev Per-order rules: every fill checks amount, expiry and overfill; the first fill
    /// additionally checks the signed fields and the signature, and pulls the order's
    /// initial deposit from the wallet. Later fills never re-check the signature.
    function _takeOrder(Order memory o, bytes calldata sig, bytes32 digest, uint256 amount) private {
        require(amount > 0, "ZERO_AMOUNT");
        require(o.expiration > block.timestamp, "ORDER_EXPIRED");
        uint256 done = filled[digest];
        require(done + amount <= o.fromAmount, "OVERFILL");
        if (done == 0) {
            require(o.toAmount > 0, "ZERO_ORDER_AMOUNT");
            require(o.expiration <= block.timestamp + MAX_ORDER_LIFETIME, "EXPIRATION_TOO_FAR");
            require(o.feeBps <= MAX_FEE_BPS, "FEE_TOO_HIGH");
            require(o.fromToken != o.toToken, "SAME_TOKEN");
            require(_whitelisted[o.fromToken] && _whitelisted[o.toToken], "TOKEN_NOT_WHITELISTED");
            require(Signatures.isValidNow(o.user, digest, sig), "BAD_SIGNATURE");
            if (o.initialDepositAmount > 0) _deposit(o.fromToken, o.user, o.initialDepositAmount);
        }
        filled[digest] = done + amount;
    }

    /// @dev _price for the fast path, whose checks guarantee every amount and price term is
    /// below 2^128 and both fromAmounts are non-zero: nothing here can overflow or divide by
    /// zero, so unchecked arithmetic gives exactly _price's numbers (a test compares them).
    function _priceFast(Order memory mk, Order memory tk, uint256 makerAmount, uint256 takerAmount)
        private
        view
        returns (bool ok, Settlement memory s)
    {
        unchecked {
            uint256 product = makerAmount * mk.toAmount;
            uint256 makerRequired = product / mk.fromAmount + (product % mk.fromAmount == 0 ? 0 : 1);
            if (takerAmount < makerRequired) return (false, s);
            product = takerAmount * tk.toAmount;
            if (makerAmount < product / tk.fromAmount + (product % tk.fromAmount == 0 ? 0 : 1)) return (false, s);

            uint256 spread = takerAmount - makerRequired;
            uint256 makerShare = (spread * spreadMakerBps) / BPS_DENOMINATOR;
            uint256 takerShare = (spread * spreadTakerBps) / BPS_DENOMINATOR;
            uint256 makerGross = makerRequired + makerShare;
            uint256 makerFee = (makerGross * mk.feeBps) / BPS_DENOMINATOR;
            uint256 takerFee = (makerAmount * tk.feeBps) / BPS_DENOMINATOR;
            s = Settlement({
                maker: mk.user,
                taker: tk.user,
                makerToken: mk.fromToken,
                takerToken: tk.fromToken,
                makerAmount: makerAmount,
                takerAmount: takerAmount,
                takerPaid: takerAmount - takerShare,
                makerReceived: makerGross - makerFee,
                takerReceived: makerAmount - takerFee,
                makerFee: makerFee,
                takerFee: takerFee,
                spread: spread,
                makerSpreadShare: makerShare,
                takerSpreadShare: takerShare,
                protocolSpreadShare: spread - makerShare - takerShare
            });
            ok = true;
        }
    }

    /// @dev emit MatchSettled(p.h0, p.h1, p.index, s) without the generic encoder: the event
    /// data is batchIndex then the 15 Settlement words, which sit back to back in memory
    /// behind `s`'s address, so the word before `s` briefly holds the index.
    function _emitMatchSettled(Pair memory p, Settlement memory s) private {
        bytes32 topic = MatchSettled.selector;
        bytes32 h0 = p.h0;
        bytes32 h1 = p.h1;
        uint256 index = p.index;
        assembly ("memory-safe") {
            let before := sub(s, 0x20)
            let saved := mload(before)
            mstore(before, index)
            log3(before, 0x200, topic, h0, h1)
            mstore(before, saved)
        }
    }

    /// @dev Math.mulDiv rounded up, with the 512-bit route only when the product can overflow.
    function _mulDivUp(uint256 a, uint256 b, uint256 d) private pure returns (uint256) {
        if (a <= type(uint128).max && b <= type(uint128).max) {
            uint256 product = a * b;
            return product / d + (product % d == 0 ? 0 : 1);
        }
        return Math.mulDiv(a, b, d, Math.Rounding.Ceil);
    }

    /// @dev ok = false when either side's signed price is not met (PRICE_MISMATCH).
    function _price(Order memory mk, Order memory tk, uint256 makerAmount, uint256 takerAmount)
        private
        view
        returns (bool ok, Settlement memory s)
    {
        // What each side must receive at its own signed price, rounded up in its favour.
        uint256 makerRequired = _mulDivUp(makerAmount, mk.toAmount, mk.fromAmount);
        if (takerAmount < makerRequired) return (false, s);
        uint256 takerRequired = _mulDivUp(takerAmount, tk.toAmount, tk.fromAmount);
        if (makerAmount < takerRequired) return (false, s);

        s.maker = mk.user;
        s.taker = tk.user;
        s.makerToken = mk.fromToken;
        s.takerToken = tk.fromToken;
        s.makerAmount = makerAmount;
        s.takerAmount = takerAmount;
        s.spread = takerAmount - makerRequired;
        s.makerSpreadShare = (s.spread * spreadMakerBps) / BPS_DENOMINATOR;
        s.takerSpreadShare = (s.spread * spreadTakerBps) / BPS_DENOMINATOR;
        s.protocolSpreadShare = s.spread - s.makerSpreadShare - s.takerSpreadShare;
        s.takerPaid = takerAmount - s.takerSpreadShare;

        uint256 makerGross = makerRequired + s.makerSpreadShare;
        s.makerFee = (makerGross * mk.feeBps) / BPS_DENOMINATOR;
        s.makerReceived = makerGross - s.makerFee;
        s.takerFee = (makerAmount * tk.feeBps) / BPS_DENOMINATOR;
        s.takerReceived = makerAmount - s.takerFee;
        ok = true;
    }

    /// @dev recipient zero: credit the owner's vault balance; otherwise send the tokens out.
    function _payout(address owner, address recipient, address token, uint256 amount) private {
        if (amount == 0) return;
        vault.credit(owner, token, amount);
        if (recipient != address(0)) {
            vault.withdrawTo(owner, token, amount, recipient);
            emit Withdrawal(owner, token, amount, recipient);
        }
    }

    function _creditProtocol(address token, uint256 amount) private {
        if (amount > 0) vault.credit(feeRecipient, token, amount);
    }

    // ---------------------------------------------------------------- router legs

    /// @notice Settles one maker leg of a swap intent against the taker's vault balance.
    /// Same per-order rules as matching; the maker's price is the only price bound (the
    /// intent's bounds are enforced by the Router over all legs). The maker keeps any surplus.
    function settleRouterLeg(
        Order calldata maker,
        bytes calldata signature,
        uint256 makerAmount,
        uint256 takerAmount,
        address taker,
        bytes32 intentDigest,
        uint256 legIndex
    ) external onlyRole(ROUTER_ROLE) whenNotPaused nonReentrant {
        bytes32 h0 = orderHash(maker);
        _revertIfFaulted(h0, intentDigest);
        _takeOrder(maker, signature, h0, makerAmount);
        uint256 required = Math.mulDiv(makerAmount, maker.toAmount, maker.fromAmount, Math.Rounding.Ceil);
        require(takerAmount >= required, "PRICE_MISMATCH");

        Settlement memory s;
        s.maker = maker.user;
        s.taker = taker;
        s.makerToken = maker.fromToken;
        s.takerToken = maker.toToken;
        s.makerAmount = makerAmount;
        s.takerAmount = takerAmount;
        s.takerPaid = takerAmount;
        s.spread = takerAmount - required;
        s.makerSpreadShare = s.spread;
        s.makerFee = (takerAmount * maker.feeBps) / BPS_DENOMINATOR;
        s.makerReceived = takerAmount - s.makerFee;
        s.takerReceived = makerAmount;

        vault.debit(maker.user, maker.fromToken, makerAmount);
        vault.debit(taker, maker.toToken, takerAmount);
        _payout(maker.user, maker.recipient, maker.toToken, s.makerReceived);
        vault.credit(taker, maker.fromToken, makerAmount);
        _creditProtocol(maker.toToken, s.makerFee);
        emit MatchSettled(h0, intentDigest, legIndex, s);
    }

    // ---------------------------------------------------------------- withdrawals

    /// @notice Instant withdrawal authorised by the user and co-signed by an executor over
    /// the same WithdrawIntent digest. Anyone may submit it.
    function executeInstantWithdrawDualSig(
        WithdrawIntent calldata intent,
        bytes calldata userSignature,
        address executor,
        bytes calldata executorSignature
    ) external whenNotPaused nonReentrant {
        require(intent.deadline > block.timestamp, "WITHDRAW_EXPIRED");
        uint256 n = intent.tokens.length;
        require(n >= 1 && n <= MAX_WITHDRAW_TOKENS, "BAD_TOKEN_COUNT");
        require(n == intent.amounts.length, "LENGTH_MISMATCH");
        require(!withdrawUuidUsed[intent.user][intent.uuid], "UUID_USED");
        require(hasRole(EXECUTOR_ROLE, executor), "NOT_EXECUTOR");
        bytes32 digest = withdrawIntentHash(intent);
        require(Signatures.isValidNow(intent.user, digest, userSignature), "BAD_SIGNATURE");
        require(Signatures.isValidNow(executor, digest, executorSignature), "BAD_EXECUTOR_SIGNATURE");
        withdrawUuidUsed[intent.user][intent.uuid] = true;

        address to = intent.recipient == address(0) ? intent.user : intent.recipient;
        for (uint256 i = 0; i < n; ++i) {
            vault.withdrawTo(intent.user, intent.tokens[i], intent.amounts[i], to);
            emit Withdrawal(intent.user, intent.tokens[i], intent.amounts[i], to);
        }
        emit InstantWithdraw(intent.user, intent.uuid, executor, to);
    }

    /// @notice Two-step exit that needs no executor and works while paused. The first call
    /// records a request; a later call for at most the requested amount pays out once
    /// emergencyDelayBlocks (live: 7,200) have been mined. After emergencyLapseBlocks
    /// (live: 14,400) the request lapses and the next call records a new one.
    function emergencyWithdraw(address token, uint256 amount) external nonReentrant {
        require(amount > 0, "ZERO_AMOUNT");
        EmergencyRequest memory req = emergencyRequests[msg.sender][token];
        if (req.blockNumber == 0 || block.number > req.blockNumber + emergencyLapseBlocks) {
            emergencyRequests[msg.sender][token] = EmergencyRequest(amount, block.number);
            emit EmergencyWithdrawRequested(msg.sender, token, amount, block.number);
            return;
        }
        require(block.number >= req.blockNumber + emergencyDelayBlocks, "EMERGENCY_TOO_EARLY");
        require(amount <= req.amount, "AMOUNT_EXCEEDS_REQUEST");
        delete emergencyRequests[msg.sender][token];
        vault.withdrawTo(msg.sender, token, amount, msg.sender);
        emit Withdrawal(msg.sender, token, amount, msg.sender);
        emit EmergencyWithdrawn(msg.sender, token, amount);
    }
}
