// A fake AWS STS endpoint for AssumeRoleWithWebIdentity (the web-identity step of the AWS
// credential chain: EKS service accounts, GitHub OIDC): checks the action, role and token in the
// form body, and answers with the given credentials in STS's XML.
import http from 'node:http';
import type { AwsTestCredentials } from './bedrock.js';
import { listenTracked } from './listen.js';

export interface FakeSts {
  url: string;
  /** The form bodies received, parsed. */
  calls: Array<Record<string, string>>;
  close(): Promise<void>;
}

export async function startFakeSts(opts: {
  roleArn: string;
  token: string;
  creds: AwsTestCredentials;
}): Promise<FakeSts> {
  const calls: Array<Record<string, string>> = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
    calls.push(form);
    const refuse = (code: string, message: string) => {
      res.writeHead(400, { 'content-type': 'text/xml' });
      res.end(
        `<ErrorResponse><Error><Type>Sender</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>fake</RequestId></ErrorResponse>`,
      );
    };
    if (req.method !== 'POST' || form.Action !== 'AssumeRoleWithWebIdentity')
      return refuse('InvalidAction', `unexpected ${req.method} ${form.Action}`);
    if (form.RoleArn !== opts.roleArn) return refuse('AccessDenied', `not allowed to assume ${form.RoleArn}`);
    if (form.WebIdentityToken !== opts.token) return refuse('InvalidIdentityToken', 'the token is not valid');
    const c = opts.creds;
    res.writeHead(200, { 'content-type': 'text/xml' });
    res.end(
      `<AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleWithWebIdentityResult>` +
        `<Credentials><AccessKeyId>${c.accessKeyId}</AccessKeyId><SecretAccessKey>${c.secretAccessKey}</SecretAccessKey>` +
        `<SessionToken>${c.sessionToken ?? ''}</SessionToken><Expiration>2099-01-01T00:00:00Z</Expiration></Credentials>` +
        `<AssumedRoleUser><Arn>${opts.roleArn}/test</Arn><AssumedRoleId>AROATEST:test</AssumedRoleId></AssumedRoleUser>` +
        `</AssumeRoleWithWebIdentityResult><ResponseMetadata><RequestId>fake</RequestId></ResponseMetadata></AssumeRoleWithWebIdentityResponse>`,
    );
  });
  return { ...(await listenTracked(server)), calls };
}
