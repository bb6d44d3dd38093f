// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// @notice Holds every deposited token and keeps a ledger per (user, token).
/// Users approve THIS contract; only the exchange and the operators the admin
/// authorises (the router) may pull wallet funds, move ledger balances or pay out.
contract Vault {
    using SafeERC20 for IERC20;

    address public immutable admin;
    address public exchange;
    mapping(address operator => bool) public isOperator;

    mapping(address user => mapping(address token => uint256)) private _ledger;

    /// @dev The ledger movements of one settled match (see settleMatch).
    struct MatchLedger {
        address maker;
        address taker;
        address makerToken;
        address takerToken;
        uint256 makerDebit;
        uint256 takerDebit;
        uint256 makerCredit;
        uint256 takerCredit;
        address protocol;
        uint256 protocolInTakerToken;
        uint256 protocolInMakerToken;
    }

    event ExchangeSet(address indexed exchange);
    event OperatorSet(address indexed operator, bool allowed);

    constructor(address admin_) {
        require(admin_ != address(0), "ZERO_ADDRESS");
        admin = admin_;
    }

    modifier onlyAdmin() {
        require(msg.sender == admin, "NOT_ADMIN");
        _;
    }

    modifier onlyOperator() {
        require(msg.sender == exchange || isOperator[msg.sender], "NOT_OPERATOR");
        _;
    }

    /// @notice Binds the vault to its exchange; can be done exactly once.
    function setExchange(address exchange_) external onlyAdmin {
        require(exchange == address(0), "EXCHANGE_ALREADY_SET");
        require(exchange_ != address(0), "ZERO_ADDRESS");
        exchange = exchange_;
        emit ExchangeSet(exchange_);
    }

    function setOperator(address operator, bool allowed) external onlyAdmin {
        isOperator[operator] = allowed;
        emit OperatorSet(operator, allowed);
    }

    function balanceOf(address user, address token) external view returns (uint256) {
        return _ledger[user][token];
    }

    /// @notice Pulls `amount` of `token` from `user`'s wallet and credits it to `user`.
    /// Distinct reasons for a short allowance and a short wallet so the engine can map them.
    function pullDeposit(address token, address user, uint256 amount) external onlyOperator {
        require(IERC20(token).allowance(user, address(this)) >= amount, "ALLOWANCE_INSUFFICIENT");
        require(IERC20(token).balanceOf(user) >= amount, "INSUFFICIENT_WALLET_BALANCE");
        require(IERC20(token).trySafeTransferFrom(user, address(this), amount), "TRANSFER_FAILED");
        _ledger[user][token] += amount;
    }

    function credit(address user, address token, uint256 amount) external onlyOperator {
        _ledger[user][token] += amount;
    }

    function debit(address user, address token, uint256 amount) external onlyOperator {
        _debit(user, token, amount);
    }

    /// @notice One match in one call: the maker's debit, then the taker's (so a shortfall
    /// names the maker first), then the credits: the maker is paid in the taker's token,
    /// the taker in the maker's, the protocol in both. Zero credits are skipped.
    function settleMatch(MatchLedger calldata m) external onlyOperator {
        _debit(m.maker, m.makerToken, m.makerDebit);
        _debit(m.taker, m.takerToken, m.takerDebit);
        if (m.makerCredit > 0) _ledger[m.maker][m.takerToken] += m.makerCredit;
        if (m.takerCredit > 0) _ledger[m.taker][m.makerToken] += m.takerCredit;
        if (m.protocolInTakerToken > 0) _ledger[m.protocol][m.takerToken] += m.protocolInTakerToken;
        if (m.protocolInMakerToken > 0) _ledger[m.protocol][m.makerToken] += m.protocolInMakerToken;
    }

    /// @notice settleMatch when it cannot fail, else nothing: returns false without effects
    /// when a debit is not covered, a credit would overflow, or two parties or the two
    /// tokens coincide (the caller then takes the reverting path, which handles those).
    function trySettleMatch(MatchLedger calldata) external onlyOperator returns (bool ok) {
        // Runs once per settled fill: read straight from calldata (fixed MatchLedger
        // layout, 11 words after the selector) instead of the generic decoder, which
        // costs more EVM steps than the ledger work itself.
        assembly ("memory-safe") {
            function arg(i) -> v {
                v := calldataload(add(4, mul(i, 0x20)))
            }
            function addressArg(i) -> a {
                a := arg(i)
                if shr(160, a) { revert(0, 0) } // what the ABI decoder does with a dirty address
            }
            // _ledger[user][token]: Solidity's nested-mapping layout.
            function slotOf(user, token) -> s {
                mstore(0x00, user)
                mstore(0x20, _ledger.slot)
                mstore(0x20, keccak256(0x00, 0x40))
                mstore(0x00, token)
                s := keccak256(0x00, 0x40)
            }
            // A credit's slot, or 0 when it is zero (skipped); reverts the path (returns
            // fits = 0) when balance + amount would wrap.
            function creditSlot(user, token, amount) -> s, fits {
                fits := 1
                if amount {
                    s := slotOf(user, token)
                    fits := iszero(gt(sload(s), not(amount)))
                }
            }
            function credit(s, amount) {
                if amount { sstore(s, add(sload(s), amount)) }
            }
            function run() -> done {
                let maker := addressArg(0)
                let taker := addressArg(1)
                let makerToken := addressArg(2)
                let takerToken := addressArg(3)
                let protocol := addressArg(8)
                // Two parties or the two tokens coincide: not for this path.
                if or(or(eq(maker, taker), eq(makerToken, takerToken)), or(eq(protocol, maker), eq(protocol, taker))) { leave }
                let makerSlot := slotOf(maker, makerToken)
                let takerSlot := slotOf(taker, takerToken)
                let makerHas := sload(makerSlot)
                let takerHas := sload(takerSlot)
                if or(lt(makerHas, arg(4)), lt(takerHas, arg(5))) { leave }
                let makerGets, fits1 := creditSlot(maker, takerToken, arg(6))
                let takerGets, fits2 := creditSlot(taker, makerToken, arg(7))
                if iszero(and(fits1, fits2)) { leave }
                let protocolGetsTaker, fits3 := creditSlot(protocol, takerToken, arg(9))
                let protocolGetsMaker, fits4 := creditSlot(protocol, makerToken, arg(10))
                if iszero(and(fits3, fits4)) { leave }
                sstore(makerSlot, sub(makerHas, arg(4)))
                sstore(takerSlot, sub(takerHas, arg(5)))
                credit(makerGets, arg(6))
                credit(takerGets, arg(7))
                credit(protocolGetsTaker, arg(9))
                credit(protocolGetsMaker, arg(10))
                done := 1
            }
            ok := run()
        }
    }

    /// @notice Debits `user` and sends the tokens out of the vault to `to`.
    function withdrawTo(address user, address token, uint256 amount, address to) external onlyOperator {
        require(to != address(0), "ZERO_ADDRESS");
        _debit(user, token, amount);
        require(IERC20(token).trySafeTransfer(to, amount), "TRANSFER_FAILED");
    }

    function _debit(address user, address token, uint256 amount) private {
        uint256 current = _ledger[user][token];
        require(current >= amount, "INSUFFICIENT_VAULT_BALANCE");
        unchecked {
            _ledger[user][token] = current - amount;
        }
    }
}
