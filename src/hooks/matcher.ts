// Matchers: `Bash|Edit` (names, exact) or a regex (`mcp__.*`, `Notebook.*`); empty or `*` = all.
const SIMPLE = /^[A-Za-z0-9_|\s-]+$/;

export function matcherMatches(
  matcher: string | null | undefined,
  value: string | undefined,
  onInvalid?: (msg: string) => void,
): boolean {
  if (matcher === undefined || matcher === null || matcher === '' || matcher === '*') return true;
  if (value === undefined) return true;
  if (SIMPLE.test(matcher)) return matcher.split('|').some((m) => m.trim() === value);
  try {
    return new RegExp(matcher).test(value);
  } catch (err) {
    onInvalid?.(
      `hook matcher ${JSON.stringify(matcher)} is not a valid regex (${(err as Error).message}); it matches nothing`,
    );
    return false;
  }
}
