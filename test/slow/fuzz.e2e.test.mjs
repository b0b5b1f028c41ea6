// The fuzz run at full size: 12 validate runs of 200 corrupted files each (npm test makes 3).
process.env.FUZZ_RUNS ??= '12';
await import('../process/fuzz.e2e.test.mjs');
