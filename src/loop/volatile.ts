// The parts of the system prompt that describe this machine and this day rather than the
// conversation: the environment block's date, OS and git lines, and the memory folder with its
// index (src/prompt/text/memory.ts). A recording (src/loop/recording.ts) leaves them out of a
// request's digest, so a session recorded on one machine replays on another (a CI runner with
// another config dir and no memories). Matched in the system prompt's JSON text.

const ENV_FIELDS = /(Today's date: |- OS version: |- Git repository: )[^\\"]*/g;
const MEMORY_SECTION = /# Memory\\nYour memory folder for this project is [\s\S]*?<\/memory-index>/g;

export function maskMachineState(systemJson: string): string {
  return systemJson.replace(ENV_FIELDS, '$1<varies>').replace(MEMORY_SECTION, '# Memory <varies>');
}
