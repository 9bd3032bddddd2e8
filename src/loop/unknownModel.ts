// A model id the table does not know is sent as given, but sized and priced by a guess (the
// default model's row, as the reference does: docs/models.md). The person is told once per id, on
// stderr, so a wrong window or cost is not silent (the reference says so on stderr too).
import { knownModel } from './pricing.js';
import { logWarning } from '../util/log.js';

const checked = new Set<string>();

/** Warns once per process for each model id the table does not know. */
export function noteUnknownModel(model: string, warn: (message: string) => void = logWarning): void {
  if (checked.has(model)) return;
  checked.add(model);
  if (knownModel(model)) return;
  warn(
    `the model "${model}" is not in the model table: it is sent as given, with a context window of 1M tokens and the default model's prices assumed (auto-compaction, get_context_usage and total_cost_usd use these). See docs/models.md.`,
  );
}
