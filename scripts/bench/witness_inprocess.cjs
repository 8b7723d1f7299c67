// snarkjs's witness calculator in one Node process, the module compiled and instantiated once and
// reused: the fastest way snarkjs users compute witnesses (docs/benchmarks.md). Prints the median
// of `runs` timed calculateWTNSBin calls after one untimed call, in milliseconds.
//   node witness_inprocess.cjs <circom_runtime dir> <circuit.wasm> <input.json> [runs]
"use strict";
const fs = require("fs");
const path = require("path");

async function main() {
  const [runtimeArg, wasmPath, inputPath, runsArg] = process.argv.slice(2);
  const runtimeDir = path.resolve(runtimeArg);
  const { WitnessCalculatorBuilder } = require(path.join(runtimeDir, "build", "main.cjs"));
  const { utils } = require(path.join(runtimeDir, "..", "ffjavascript", "build", "main.cjs"));
  const runs = Number(runsArg || 5);
  const calculator = await WitnessCalculatorBuilder(fs.readFileSync(wasmPath));
  const input = utils.unstringifyBigInts(JSON.parse(fs.readFileSync(inputPath, "utf8")));
  await calculator.calculateWTNSBin(input);  // warm-up: the engine's tiers, the instance's memory
  const times = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    await calculator.calculateWTNSBin(input);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  console.log(times[Math.floor(times.length / 2)].toFixed(2));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
