import { describe, expect, it } from 'vitest';
import { bypassesProxy, proxyFor } from '../../src/net/proxyFor.js';

describe('proxyFor: the proxy for a URL from HTTPS_PROXY / HTTP_PROXY / NO_PROXY', () => {
  it('https:// uses HTTPS_PROXY, else HTTP_PROXY; http:// uses HTTP_PROXY only; lowercase wins', () => {
    expect(proxyFor('https://a.example', { HTTPS_PROXY: 'http://s:1', HTTP_PROXY: 'http://p:1' })).toBe('http://s:1');
    expect(proxyFor('https://a.example', { HTTP_PROXY: 'http://p:1' })).toBe('http://p:1');
    expect(proxyFor('http://a.example', { HTTPS_PROXY: 'http://s:1' })).toBe('');
    expect(proxyFor('http://a.example', { http_proxy: 'http://low:1', HTTP_PROXY: 'http://up:1' })).toBe(
      'http://low:1',
    );
    expect(proxyFor('https://a.example', {})).toBe('');
  });

  it('NO_PROXY: hosts with their subdomains, leading . or *., host:port, *', () => {
    const u = (s: string) => new URL(s);
    expect(bypassesProxy(u('https://sts.amazonaws.com'), { NO_PROXY: 'amazonaws.com' })).toBe(true);
    expect(bypassesProxy(u('https://amazonaws.com'), { NO_PROXY: '.amazonaws.com' })).toBe(true);
    expect(bypassesProxy(u('https://x.amazonaws.com'), { no_proxy: '*.amazonaws.com' })).toBe(true);
    expect(bypassesProxy(u('https://notamazonaws.com'), { NO_PROXY: 'amazonaws.com' })).toBe(false);
    expect(bypassesProxy(u('http://127.0.0.1:4318/v1'), { NO_PROXY: 'example.com, 127.0.0.1:4318' })).toBe(true);
    expect(bypassesProxy(u('http://127.0.0.1:4317/v1'), { NO_PROXY: '127.0.0.1:4318' })).toBe(false);
    expect(bypassesProxy(u('https://a.b'), { NO_PROXY: 'a.b:443' })).toBe(true);
    expect(bypassesProxy(u('https://anything'), { NO_PROXY: '*' })).toBe(true);
    expect(proxyFor('https://sts.amazonaws.com', { HTTPS_PROXY: 'http://s:1', NO_PROXY: 'amazonaws.com' })).toBe('');
  });
});
