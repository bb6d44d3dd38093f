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
