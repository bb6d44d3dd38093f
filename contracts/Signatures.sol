// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";

/// @notice Signature helpers shared by the exchange and the router.
library Signatures {
    /// @dev Splits a 65-byte (r, s, v) or 64-byte EIP-2098 (r, vs) signature.
    /// Returns ok = false for any other length so callers can treat it as "no valid ECDSA signature".
    function split(bytes memory sig) internal pure returns (bool ok, uint8 v, bytes32 r, bytes32 s) {
        if (sig.length == 65) {
            assembly ("memory-safe") {
                r := mload(add(sig, 0x20))
                s := mload(add(sig, 0x40))
                v := byte(0, mload(add(sig, 0x60)))
            }
            return (true, v, r, s);
        }
        if (sig.length == 64) {
            bytes32 vs;
            assembly ("memory-safe") {
                r := mload(add(sig, 0x20))
                vs := mload(add(sig, 0x40))
            }
            // EIP-2098: the top bit of vs is the y-parity, the rest is s.
            s = vs & bytes32(0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff);
            v = uint8((uint256(vs) >> 255) + 27);
            return (true, v, r, s);
        }
        return (false, 0, 0, 0);
    }

    /// @dev The ECDSA half of isValidNow alone: true implies isValidNow is true.
    function isValidEcdsa(address signer, bytes32 digest, bytes memory sig) internal pure returns (bool) {
        if (signer == address(0)) return false;
        (bool ok, uint8 v, bytes32 r, bytes32 s) = split(sig);
        if (!ok) return false;
        (address recovered, ECDSA.RecoverError err, ) = ECDSA.tryRecover(digest, v, r, s);
        return err == ECDSA.RecoverError.NoError && recovered == signer;
    }

    /// @dev ECDSA first (so EIP-7702-delegated EOAs, which have code, still pass by key),
    /// then EIP-1271 on the signer when it is a contract. OpenZeppelin's
    /// SignatureChecker.isValidSignatureNow would skip ECDSA for any signer with code.
    function isValidNow(address signer, bytes32 digest, bytes memory sig) internal view returns (bool) {
        if (signer == address(0)) return false;
        (bool ok, uint8 v, bytes32 r, bytes32 s) = split(sig);
        if (ok) {
            (address recovered, ECDSA.RecoverError err, ) = ECDSA.tryRecover(digest, v, r, s);
            if (err == ECDSA.RecoverError.NoError && recovered == signer) return true;
        }
        if (signer.code.length > 0) {
            return SignatureChecker.isValidERC1271SignatureNow(signer, digest, sig);
        }
        return false;
    }
}
