// stream-json input: each stdin line is parsed and validated, then routed — user messages to the
// runner's queue, control requests to the channel. A bad line is reported (stderr, and a
// `system`/`error` line) and reading goes on; nothing queued is lost.
import type { ControlChannel } from '../control/channel.js';
import { describeInboundProblem } from '../protocol/inbound.js';
import { LineTooLongError, MAX_LINE_BYTES, readLines } from '../protocol/lineReader.js';
import type { SessionRunner } from '../session/runner.js';
import type { SessionEvent } from '../session/events.js';
import { logWarning } from '../util/log.js';

export async function consumeStreamJson(
  input: AsyncIterable<Buffer | string>,
  runner: SessionRunner,
  channel: ControlChannel,
  emit: (event: SessionEvent) => Promise<void>,
): Promise<void> {
  const report = (lineNo: number | undefined, problem: string) => {
    const where = lineNo === undefined ? 'stdin' : `stdin line ${lineNo}`;
    logWarning(`${where}: ${problem}; the line was skipped`);
    void emit({
      type: 'notice',
      notice: {
        subtype: 'error',
        error: `${where}: ${problem}; the line was skipped`,
        ...(lineNo === undefined ? {} : { line: lineNo }),
      },
    });
  };
  for await (const item of readLines(input)) {
    if (item instanceof LineTooLongError) {
      report(item.lineNo, `longer than the cap of ${MAX_LINE_BYTES} bytes`);
      continue;
    }
    let json: unknown;
    try {
      json = JSON.parse(item.text);
    } catch (err) {
      report(item.lineNo, `not valid JSON (${(err as Error).message})`);
      continue;
    }
    const checked = describeInboundProblem(json);
    if (checked.problem !== undefined) {
      report(item.lineNo, checked.problem);
      continue;
    }
    const msg = checked.message;
    switch (msg.type) {
      case 'user':
        runner.submit(msg.message.content as never, msg.uuid);
        break;
      case 'control_request':
        void channel.handleRequest(msg.request_id, msg.request as never);
        break;
      case 'control_response':
        if (!channel.handleResponse(msg.response as never))
          logWarning(`stdin line ${item.lineNo}: control_response for unknown request ${msg.response.request_id}`);
        break;
      case 'control_cancel_request':
        channel.handleCancel(msg.request_id);
        break;
      case 'keep_alive':
        break;
    }
  }
}
