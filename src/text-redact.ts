// Credentials kept out of daemon.log. The log persists and ends up attached to bug reports, while
// notify destinations carry secrets in their own text: a webhook's user and password, an ntfy
// topic's, a token as a query value, a bearer token in a command's header. `config` and `status`
// show a destination whole to its own user (docs/notify.md); every log line passes through here.
//
// What is recognised: a URL's userinfo (`scheme://user:pass@`), every query value of a URL, an
// `Authorization`-style scheme and its credentials (`Bearer …`, `Basic …`), curl's `-u`/`--user`
// value, and the value of a name that says it is secret (`token=`, `api_key:`, `password=`,
// `X-Api-Key: …`). A secret that is only a URL's path (some webhook services put the token there)
// or an ntfy topic's name looks like any other path and is kept.

const HIDDEN = "***";
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@'"\\]+@/gi;
const URL_QUERY = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s?#'"\\]*\?)([^\s#'"\\]*)/gi;
const QUERY_VALUE = /=[^&;]*/g;
const AUTH_SCHEME = /\b(bearer|basic|digest)(\s+)[^\s'"\\,;]+/gi;
const CURL_USER = /(\s(?:-u\s*|--user[=\s]\s*))(?!-)[^\s'"\\]+/g;
const SECRET_NAMED =
  /\b([\w.-]*(?:token|secret|password|passwd|pass|pwd|key|auth|authorization|credentials?))(["']?\s*[=:]\s*["']?)(?!\*\*\*|(?:bearer|basic|digest)\s)([^\s&'"\\,;]+)/gi;

/** The text with every credential it recognises replaced by `***`; anything else as it was. */
export function redacted(text: string): string {
  return text
    .replace(URL_USERINFO, `$1${HIDDEN}@`)
    .replace(URL_QUERY, (_, head: string, query: string) => head + query.replace(QUERY_VALUE, `=${HIDDEN}`))
    .replace(AUTH_SCHEME, `$1$2${HIDDEN}`)
    .replace(CURL_USER, `$1${HIDDEN}`)
    .replace(SECRET_NAMED, `$1$2${HIDDEN}`);
}
