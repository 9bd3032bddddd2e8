// Prints the files of a test run by wall time, with the CPU seconds of their worker and of the
// processes they started: `AGENT_TEST_CPU_LOG=/tmp/cpu.log npm test`, then
// `node scripts/test-cpu-report.mjs /tmp/cpu.log [how many]`. CPU well under wall means the file
// mostly waits; CPU near wall means it is busy (test/setup.ts writes the log).
import { readFileSync } from 'node:fs';

const [file, top = '40'] = process.argv.slice(2);
if (!file) {
  console.error('usage: node scripts/test-cpu-report.mjs <AGENT_TEST_CPU_LOG file> [how many]');
  process.exit(2);
}
const rows = readFileSync(file, 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l));
const sum = (k) => rows.reduce((a, r) => a + r[k], 0);
console.log(
  `${rows.length} files: wall ${sum('wall').toFixed(1)} s (summed over workers), CPU ${(sum('self') + sum('children')).toFixed(1)} s`,
);
console.log('  wall    CPU  file');
for (const r of rows.sort((a, b) => b.wall - a.wall).slice(0, Number(top)))
  console.log(
    `${r.wall.toFixed(1).padStart(6)} ${(r.self + r.children).toFixed(1).padStart(6)}  ${r.file.replace(/.*?\/test\//, 'test/')}`,
  );
