// The credential commands a settings file may name. Set once at session start from the merged
// settings (createSession), read when a provider's client is built.
export interface AuthSettings {
  /** A command whose stdout is the Anthropic API key (apiKeyHelper.ts). */
  apiKeyHelper?: string;
  /** Bedrock: a command that refreshes AWS credentials (e.g. `aws sso login`), run when none resolve. */
  awsAuthRefresh?: string;
  /** Bedrock: a command that prints AWS credentials as JSON (`{"Credentials": {...}}`). */
  awsCredentialExport?: string;
  /** Vertex AI: a command that refreshes Google credentials (e.g. `gcloud auth application-default login`), run when none resolve. */
  gcpAuthRefresh?: string;
}

let current: AuthSettings = {};

export function setAuthSettings(s: AuthSettings): void {
  current = { ...s };
}

export function authSettings(): AuthSettings {
  return current;
}
