import { expect, test } from "bun:test";
import { redacted } from "../../src/text-redact.ts";
import { logLine } from "../../src/text-printable.ts";

test("a URL's userinfo and query values, auth schemes, curl's -u and secret-named values are hidden", () => {
  const cases: [string, string][] = [
    ["push to http://u:p@h:1/x?token=abc&b=2#top about task 3", "push to http://***@h:1/x?token=***&b=***#top about task 3"],
    ["ntfy+https://bob:pw@ntfy.example/topic", "ntfy+https://***@ntfy.example/topic"],
    [`["curl -H 'Authorization: Bearer SECRET' https://x/y"]`, `["curl -H 'Authorization: Bearer ***' https://x/y"]`],
    ["Authorization: Basic dXNlcjpwYXNz", "Authorization: Basic ***"],
    ["curl -u admin:hunter2 https://x", "curl -u *** https://x"],
    ["curl --user=admin:hunter2 x", "curl --user=*** x"],
    ["curl -H 'X-Api-Key: s3cr3t' x", "curl -H 'X-Api-Key: ***' x"],
    ['GITHUB_TOKEN=ghp_123; api_key="zzz"; password: pw', 'GITHUB_TOKEN=***; api_key="***"; password: ***'],
  ];
  for (const [given, shown] of cases) expect(redacted(given)).toBe(shown);
});

test("lines without credentials are left as they were", () => {
  for (const line of [
    "snapshot written /tmp/a/b.json: 3 task(s) in 5 ms",
    "daemon 123 listening on /run/user/0/fleetcom/default.sock",
    "push to https://hooks.example/x about task 3 (input) given up after 4 attempts: HTTP 500",
    "FLEETCOM_PUSH_BACKOFF_MS='x' is not a whole number of milliseconds; using 2000",
  ])
    expect(redacted(line)).toBe(line);
});

test("every daemon.log entry is redacted", () => {
  expect(logLine("push to http://u:SECRET@h/x", new Date(0))).toBe("1970-01-01T00:00:00.000Z push to http://***@h/x\n");
});
