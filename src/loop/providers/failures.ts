// A cloud provider's refusal, named: "Bedrock: API Error: 403 … (check the AWS credentials…)"
// rather than a bare 403 the user has to trace back to a provider and a setting.
import { ModelError } from '../modelErrors.js';
import { type ApiProvider, PROVIDER_LABEL } from './select.js';

const AUTH_HINT: Record<ApiProvider, string> = {
  firstParty: '',
  bedrock: 'check the AWS credentials, AWS_REGION, and that the model is enabled for the account',
  vertex: 'check the Google credentials, ANTHROPIC_VERTEX_PROJECT_ID and CLOUD_ML_REGION',
  foundry: 'check ANTHROPIC_FOUNDRY_API_KEY or the Microsoft Entra ID credentials',
};

export function forProvider(err: ModelError, provider: ApiProvider): ModelError {
  if (provider === 'firstParty' || err.kind === 'aborted' || err.kind === 'no_credentials') return err;
  const hint = err.kind === 'auth' ? ` (${AUTH_HINT[provider]})` : '';
  return new ModelError(`${PROVIDER_LABEL[provider]}: ${err.message}${hint}`, {
    status: err.status,
    kind: err.kind,
    retryable: err.retryable,
    retryAfterMs: err.retryAfterMs,
    cause: err.cause ?? err,
  });
}
