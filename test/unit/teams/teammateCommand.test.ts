// A lead starts its process teammates as bin/agent itself, so they get its shell lines (the
// start-up snapshot, huge pages, NODE_EXTRA_CA_CERTS read late); node + the file only when the file
// cannot be run.
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { teammateCommand } from '../../../src/teams/teammateLaunch.js';
import { makeTempDir } from '../../tempDirs.js';

it('an executable bin/agent is run as itself; a file without its mode bits, or another file, with this Node', () => {
  const dir = makeTempDir('agent-launch-');
  const bin = join(dir, 'agent');
  writeFileSync(bin, '#!/bin/sh\n');
  chmodSync(bin, 0o755);
  expect(teammateCommand(bin)).toEqual([bin]);
  // Even root may not execute a file with no x bit set.
  chmodSync(bin, 0o644);
  expect(teammateCommand(bin)).toEqual([process.execPath, bin]);
  const script = join(dir, 'agent.cjs');
  writeFileSync(script, '');
  chmodSync(script, 0o755);
  expect(teammateCommand(script)).toEqual([process.execPath, script]);
});
