"use strict";
// CommonJS twin of module-format.ts: the build copies this file over the compiled
// dist/cjs/sim/platform/module-format.js. Same exports, no import.meta.
Object.defineProperty(exports, "__esModule", { value: true });
exports.MODULE_FILE = __filename;
exports.nodeRequire = require;
exports.importModule = (specifier) => import(specifier);
