// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Exchange} from "./Exchange.sol";
import {Vault} from "./Vault.sol";
import {Signatures} from "./Signatures.sol";

/// @notice Settles a taker's signed swap Intent against maker orders in one transaction.
/// The Intent is signed under the EXCHANGE's EIP-712 domain, so digests come from it.
/// Needs ROUTER_ROLE on the exchange and operator rights on the vault.
contract Router is AccessControl, ReentrancyGuardTransient {
    using SafeERC20 for IERC20;

    bytes32 public constant EXECUTOR_ROLE = keccak256("EXECUTOR_ROLE");
    bytes32 public constant INTENT_TYPEHASH = keccak256(
        "Intent(address taker,address inputToken,address outputToken,uint256 maxInputAmount,uint256 minOutputAmount,address recipient,uint256 initialDepositAmount,uint256 uuid,uint48 deadline)"
    );
    uint256 public constant MAX_LEGS = 20;

    struct Intent {
        address taker;
        address inputToken;
        address outputToken;
        uint256 maxInputAmount;
        uint256 minOutputAmount;
        address recipient;
        uint256 initialDepositAmount;
        uint256 uuid;
        uint48 deadline;
    }

    /// @dev makerAmount: maker's fromToken given to the taker; takerAmount: maker's toToken paid by the taker.
    struct MakerLeg {
        Exchange.Order order;
        bytes signature;
        uint256 makerAmount;
        uint256 takerAmount;
    }

    /// @dev ERC-2612 permit of the input token for the vault; value 0 means none.
    struct PermitData {
        uint256 value;
        uint256 deadline;
        bytes signature;
    }

    /// @dev The swap's gas, charged to the taker in the vault: in the output token it comes
    /// off what the taker receives (receive_less), in the input token on top of what the taker
    /// spends (pay_more); amount 0 charges nothing. It goes to the exchange's fee recipient.
    struct GasFee {
        address token;
        uint256 amount;
    }

    struct RouteTotals {
        uint256 input;
        uint256 output;
        address intermediate;
        uint256 intermediateIn;
        uint256 intermediateOut;
    }

    Exchange public immutable exchange;
    Vault public immutable vault;
    mapping(address taker => mapping(uint256 uuid => bool)) public intentUuidUsed;

    event IntentExecuted(address indexed taker, uint256 indexed uuid, uint256 inputAmount, uint256 outputAmount);
    event IntentGasCharged(address indexed taker, uint256 indexed uuid, address token, uint256 amount);
    event IntentDeposit(address indexed taker, address indexed token, uint256 amount);

    constructor(address exchange_, address admin, address executor) {
        require(exchange_ != address(0) && admin != address(0), "ZERO_ADDRESS");
        exchange = Exchange(exchange_);
        vault = Exchange(exchange_).vault();
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        if (executor != address(0)) _grantRole(EXECUTOR_ROLE, executor);
    }

    function intentHash(Intent calldata intent) public view returns (bytes32) {
        return exchange.hashTypedData(keccak256(abi.encode(INTENT_TYPEHASH, intent)));
    }

    function executeIntent(
        Intent calldata intent,
        bytes calldata takerSignature,
        MakerLeg[] calldata legs,
        PermitData calldata permit,
        GasFee calldata gas
    ) external onlyRole(EXECUTOR_ROLE) nonReentrant returns (uint256 inputAmount, uint256 outputAmount) {
        require(!exchange.paused(), "PAUSED");
        require(intent.deadline > block.timestamp, "INTENT_EXPIRED");
        require(!intentUuidUsed[intent.taker][intent.uuid], "INTENT_UUID_USED");
        require(legs.length > 0 && legs.length <= MAX_LEGS, "BAD_LEG_COUNT");
        require(intent.inputToken != intent.outputToken, "SAME_TOKEN");
        bytes32 digest = intentHash(intent);
        require(Signatures.isValidNow(intent.taker, digest, takerSignature), "BAD_SIGNATURE");
        intentUuidUsed[intent.taker][intent.uuid] = true;

        if (permit.value > 0) _tryPermit(intent.inputToken, intent.taker, permit);
        if (intent.initialDepositAmount > 0) {
            require(exchange.isTokenWhitelisted(intent.inputToken), "TOKEN_NOT_WHITELISTED");
            _pullDeposit(intent.inputToken, intent.taker, intent.initialDepositAmount);
            emit IntentDeposit(intent.taker, intent.inputToken, intent.initialDepositAmount);
        }

        RouteTotals memory t = _settleLegs(intent, legs, digest);
        _chargeAndPay(intent, t, gas);
        return (t.input, t.output);
    }

    /// @dev The route's totals against the signed bounds, the gas charged on top of the input
    /// or off the output, and the output paid to the recipient (or left in the vault).
    function _chargeAndPay(Intent calldata intent, RouteTotals memory t, GasFee calldata gas) private {
        require(t.intermediateIn == t.intermediateOut, "INTERMEDIATE_NOT_NETTED");
        if (gas.amount > 0) {
            if (gas.token == intent.outputToken) {
                require(t.output >= gas.amount, "MIN_OUTPUT_NOT_MET");
                t.output -= gas.amount;
            } else {
                require(gas.token == intent.inputToken, "BAD_GAS_TOKEN");
                t.input += gas.amount;
            }
        }
        require(t.input <= intent.maxInputAmount, "MAX_INPUT_EXCEEDED");
        require(t.output >= intent.minOutputAmount, "MIN_OUTPUT_NOT_MET");
        if (gas.amount > 0) {
            vault.debit(intent.taker, gas.token, gas.amount);
            vault.credit(exchange.feeRecipient(), gas.token, gas.amount);
            emit IntentGasCharged(intent.taker, intent.uuid, gas.token, gas.amount);
        }
        if (intent.recipient != address(0)) {
            vault.withdrawTo(intent.taker, intent.outputToken, t.output, intent.recipient);
        }
        emit IntentExecuted(intent.taker, intent.uuid, t.input, t.output);
    }

    /// @dev The swap's wallet-funded part. A permit (and any standing approval of the vault)
    /// lets the vault pull it; a token without ERC-2612 is approved to the router instead
    /// (the interface's flow: POST /approve for the router, then POST /swap), and then the
    /// router moves it into the vault. Neither allowance: the vault's ALLOWANCE_INSUFFICIENT.
    function _pullDeposit(address token, address user, uint256 amount) private {
        IERC20 t = IERC20(token);
        if (t.allowance(user, address(vault)) >= amount || t.allowance(user, address(this)) < amount) {
            vault.pullDeposit(token, user, amount);
            return;
        }
        require(t.balanceOf(user) >= amount, "INSUFFICIENT_WALLET_BALANCE");
        require(t.trySafeTransferFrom(user, address(vault), amount), "TRANSFER_FAILED");
        vault.credit(user, token, amount);
    }

    /// @dev A leg either spends the input token (for the output, or for the one intermediate
    /// token) or spends the intermediate token for the output. Legs settle in the given order,
    /// so first-hop legs must come before the second-hop legs they fund.
    function _settleLegs(Intent calldata intent, MakerLeg[] calldata legs, bytes32 digest)
        private
        returns (RouteTotals memory t)
    {
        for (uint256 i = 0; i < legs.length; ++i) {
            MakerLeg calldata leg = legs[i];
            address gives = leg.order.fromToken; // what the maker gives = what the taker gets
            address wants = leg.order.toToken;
            if (wants == intent.inputToken) {
                t.input += leg.takerAmount;
                if (gives == intent.outputToken) {
                    t.output += leg.makerAmount;
                } else {
                    if (t.intermediate == address(0)) t.intermediate = gives;
                    require(gives == t.intermediate, "BAD_ROUTE");
                    t.intermediateIn += leg.makerAmount;
                }
            } else if (gives == intent.outputToken) {
                if (t.intermediate == address(0)) t.intermediate = wants;
                require(wants == t.intermediate, "BAD_ROUTE");
                t.intermediateOut += leg.takerAmount;
                t.output += leg.makerAmount;
            } else {
                revert("BAD_ROUTE");
            }
            exchange.settleRouterLeg(leg.order, leg.signature, leg.makerAmount, leg.takerAmount, intent.taker, digest, i);
        }
    }

    function _tryPermit(address token, address owner, PermitData calldata permit) private {
        (bool ok, uint8 v, bytes32 r, bytes32 s) = Signatures.split(permit.signature);
        if (!ok) return;
        // A failing permit is not fatal: the wallet pull then decides (ALLOWANCE_INSUFFICIENT).
        try IERC20Permit(token).permit(owner, address(vault), permit.value, permit.deadline, v, r, s) {} catch {}
    }
}
