// The credential commands a settings file may name. The session resolves them once from its merged
// settings (SessionConfig.auth) and builds its model API with them (modelApi, ../modelClient.ts):
// every provider client gets them in its ClientOptions.
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
