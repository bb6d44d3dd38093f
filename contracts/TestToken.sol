// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Permit.sol";

/// @notice Test ERC-20 with ERC-2612 permit (permit domain: token name, version "1").
contract TestToken is ERC20, ERC20Permit {
    uint8 private immutable _decimals;
    address public immutable minter;

    constructor(string memory name_, string memory symbol_, uint8 decimals_)
        ERC20(name_, symbol_)
        ERC20Permit(name_)
    {
        _decimals = decimals_;
        minter = msg.sender;
    }

    function decimals() public view override returns (uint8) {
        return _decimals;
    }

    function mint(address to, uint256 amount) external {
        require(msg.sender == minter, "NOT_MINTER");
        _mint(to, amount);
    }
}

/// @notice Test ERC-20 without permit, for the "permit unsupported" paths.
contract TestTokenNoPermit is ERC20 {
    uint8 private immutable _decimals;
    address public immutable minter;

    constructor(string memory name_, string memory symbol_, uint8 decimals_) ERC20(name_, symbol_) {
        _decimals = decimals_;
        minter = msg.sender;
    }

    function decimals() public view override returns (uint8) {
        return _decimals;
    }

    function mint(address to, uint256 amount) external {
        require(msg.sender == minter, "NOT_MINTER");
        _mint(to, amount);
    }
}
