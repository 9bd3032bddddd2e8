// Clean-up that helper modules need after each test or each test file. The suite runs with
// isolate: false (a worker loads each module once for all its files, which saves most of the
// collection time), so a hook a helper registered when first imported would run in that one file
// only. Helpers hand their clean-up to this module instead; test/setup.ts runs it for every file.

type Cleanup = () => unknown;
const eachTest: Cleanup[] = [];
const eachFile: Cleanup[] = [];

/** Run `fn` after every test of every file (after the file's own afterEach hooks). */
export function afterEveryTest(fn: Cleanup): void {
  eachTest.push(fn);
}

/** Run `fn` when every test file ends (after the file's own afterAll hooks). */
export function afterEveryFile(fn: Cleanup): void {
  eachFile.push(fn);
}

export async function runAfterTest(): Promise<void> {
  for (const fn of eachTest) await fn();
}

export async function runAfterFile(): Promise<void> {
  for (const fn of eachFile) await fn();
}
