/*
 * Logging in (see conn.h): the strict host key check, the key, and the
 * second factor (keyboard-interactive) through the prompt callback.  A
 * password is never tried.
 */
#include "conn.h"
#include "conn-int.h"
#include "sshcert.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libssh/libssh.h>

/* Passphrases are never asked for: BatchMode.  Returning -1 refuses. */
int
conn_auth_refuse(const char *prompt, char *buf, size_t len, int echo,
    int verify, void *userdata)
{
	(void)prompt; (void)buf; (void)len; (void)echo; (void)verify;
	(void)userdata;
	return -1;
}

/* Quote for sh only when needed, so hints read like what one would type. */
static char *
conn_sh_word(const char *w)
{
	const char	*p;

	if (*w == '\0')
		return shell_quote(w);
	for (p = w; *p != '\0'; p++) {
		if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789._/:@%+=,-", *p) == NULL)
			return shell_quote(w);
	}
	return xstrdup(w);
}

/* "[host]:port" as known_hosts and ssh-keygen -R spell it; "host" on 22. */
static char *
conn_kh_name(const char *host, unsigned int port)
{
	if (port == 22)
		return xstrdup(host);
	return xasprintf("[%s]:%u", host, port);
}

static char *
conn_keyscan_hint(const char *host, unsigned int port, const char *file)
{
	char	*qf, *qh, *s;

	qf = conn_sh_word(file);
	qh = conn_sh_word(host);
	if (port == 22)
		s = xasprintf("ssh-keyscan %s >> %s", qh, qf);
	else
		s = xasprintf("ssh-keyscan -p %u %s >> %s", port, qh, qf);
	free(qh);
	free(qf);
	return s;
}

/* "ssh-ed25519 SHA256:..." of the server's key. */
static char *
conn_server_key(ssh_session s)
{
	ssh_key		 key = NULL;
	unsigned char	*hash = NULL;
	size_t		 hlen;
	char		*fp, *out;
	const char	*type;

	if (ssh_get_server_publickey(s, &key) != SSH_OK)
		return xstrdup("unknown key");
	type = ssh_key_type_to_char(ssh_key_type(key));
	if (ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash,
	    &hlen) != 0) {
		ssh_key_free(key);
		return xstrdup(type ? type : "unknown key");
	}
	fp = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, hlen);
	out = xasprintf("%s %s", type ? type : "key", fp ? fp : "?");
	ssh_string_free_char(fp);
	ssh_clean_pubkey_hash(&hash);
	ssh_key_free(key);
	return out;
}

/*
 * Strict host key check.  Never writes known_hosts: the user decides, after
 * checking the fingerprint with the cluster's admins.
 */
int
conn_check_host_key(ssh_session s, const char *host, unsigned int port,
    const char *file, char **why)
{
	enum ssh_known_hosts_e	 k;
	char			*name, *key, *scan, *qf, *qn;
	int			 rc = TRY_STOP;

	k = ssh_session_is_known_server(s);
	if (k == SSH_KNOWN_HOSTS_OK)
		return TRY_OK;
	name = conn_kh_name(host, port);
	key = conn_server_key(s);
	scan = conn_keyscan_hint(host, port, file);
	qf = conn_sh_word(file);
	qn = shell_quote(name);	/* [ and ] are glob characters */
	switch (k) {
	case SSH_KNOWN_HOSTS_CHANGED:
	case SSH_KNOWN_HOSTS_OTHER:
		cause_set(why, "HOST KEY CHANGED for %s: the server now offers "
		    "%s, which does not match the key recorded in %s. This can "
		    "be a man-in-the-middle attack; no credentials were sent. If "
		    "the cluster was really re-keyed (ask its admins), remove "
		    "the old key with: ssh-keygen -R %s -f %s, then check the "
		    "new fingerprint and add it with: %s", name, key, file, qn,
		    qf, scan);
		break;
	case SSH_KNOWN_HOSTS_NOT_FOUND:
		cause_set(why, "host key of %s (%s) cannot be checked: %s does "
		    "not exist. Check the fingerprint with the cluster's "
		    "admins, then add it with: %s", name, key, file, scan);
		break;
	case SSH_KNOWN_HOSTS_UNKNOWN:
		cause_set(why, "host key of %s (%s) is not in %s%s: check the "
		    "fingerprint with the cluster's admins, then add it with: "
		    "%s", name, key, file, access(file, F_OK) != 0 ?
		    " (the file does not exist)" : "", scan);
		break;
	default:
		cause_set(why, "cannot check the host key of %s against %s: "
		    "%s", name, file, ssh_get_error(s));
		break;
	}
	free(qn);
	free(qf);
	free(scan);
	free(key);
	free(name);
	return rc;
}

static const char *
conn_auth_word(int rc)
{
	switch (rc) {
	case SSH_AUTH_SUCCESS:
		return "accepted";
	case SSH_AUTH_PARTIAL:
		return "accepted, but the server wants a second factor";
	case SSH_AUTH_DENIED:
		return "refused by the server";
	default:
		return "error";
	}
}

#define CONN_KBDINT_TRIES	3
#define CONN_KBDINT_PROMPTS	16

/*
 * OpenSSH's PAM puts the module's information text (Duo's menu: "Duo
 * two-factor login ... 1. Duo Push ...") before the prompt, in the same
 * string.  That text goes with the instruction, so the prompt is its last
 * line ("Passcode or option (1-3): ") and the text keeps its lines.
 */
static void
conn_kbdint_split(struct conn_prompt *p, const char **instr, char **joined)
{
	const char	*nl = strrchr(p->text, '\n');
	size_t		 len;

	if (nl == NULL)
		return;
	len = nl - p->text;
	while (len > 0 && (p->text[len - 1] == '\n' ||
	    p->text[len - 1] == '\r'))
		len--;
	*joined = xasprintf("%s%s%.*s", *instr != NULL ? *instr : "",
	    *instr != NULL && **instr != '\0' ? "\n" : "", (int)len,
	    p->text);
	*instr = *joined;
	p->text = nl + 1;
}

/*
 * The second factor: keyboard-interactive after the key.  The server's
 * prompts go to the prompt callback as written; each answer is wiped right
 * after libssh took it (libssh burns its own copy when the exchange ends).
 * A refused answer is asked again, CONN_KBDINT_TRIES times in all.
 */
static int
conn_kbdint(struct conn *c, ssh_session s, const char *user,
    const char *host, unsigned int port, char **why)
{
	struct conn_prompt	 pv[CONN_KBDINT_PROMPTS];
	char			*answers[CONN_KBDINT_PROMPTS], *ask = NULL;
	char			*joined = NULL, note[160], echo;
	const char		*name, *instr;
	conn_prompt_fn		 fn;
	void			*arg;
	int			 rc, n, i, attempt, methods, denied = 0;

	methods = ssh_userauth_list(s, NULL);
	if ((methods & SSH_AUTH_METHOD_INTERACTIVE) == 0) {
		cause_set(why, "login as %s@%s:%u needs a second factor after "
		    "the key that sqdeck cannot give (the server offers %s%s"
		    "only): ask the cluster's admins for key + "
		    "keyboard-interactive or key-only access", user, host,
		    port, (methods & SSH_AUTH_METHOD_PASSWORD) ? "password " :
		    "", (methods & SSH_AUTH_METHOD_GSSAPI_MIC) ? "gssapi " :
		    "");
		return TRY_STOP;
	}
	fn = conn_prompt_of(c, &arg);
	*note = '\0';
	for (attempt = 1; attempt <= CONN_KBDINT_TRIES; attempt++) {
		rc = ssh_userauth_kbdint(s, NULL, NULL);
		while (rc == SSH_AUTH_INFO) {
			name = ssh_userauth_kbdint_getname(s);
			instr = ssh_userauth_kbdint_getinstruction(s);
			n = ssh_userauth_kbdint_getnprompts(s);
			if (n > CONN_KBDINT_PROMPTS)
				n = -1;
			if (n < 0) {
				cause_set(why, "login as %s@%s:%u: the server "
				    "sent a malformed second-factor request",
				    user, host, port);
				return TRY_STOP;
			}
			for (i = 0; i < n; i++) {
				pv[i].text = ssh_userauth_kbdint_getprompt(s,
				    i, &echo);
				if (pv[i].text == NULL)
					pv[i].text = "";
				pv[i].echo = echo != 0;
				answers[i] = NULL;
			}
			if (n == 1)
				conn_kbdint_split(&pv[0], &instr, &joined);
			if (n > 0 && (fn == NULL || fn(arg, conn_name(c),
			    name ? name : "", instr ? instr : "",
			    *note ? note : NULL, pv, n, answers, &ask) != 0)) {
				for (i = 0; i < n; i++)
					conn_wipe(answers[i]);
				cause_set(why, "login as %s@%s:%u needs a "
				    "second factor after the key (the server "
				    "asks \"%s\") and it could not be asked: "
				    "%s. Log in first, from a terminal, with: "
				    "sqdeck login %s (the login is then held "
				    "for every sqdeck command until it is idle "
				    "for the cluster's persist: time, 10 min by "
				    "default)", user, host, port,
				    n > 0 ? pv[0].text : "",
				    ask != NULL ? ask : "no terminal to answer "
				    "it on", conn_name(c));
				free(ask);
				return TRY_STOP;
			}
			free(joined);
			joined = NULL;
			for (i = 0; i < n; i++) {
				if (ssh_userauth_kbdint_setanswer(s, i,
				    answers[i] != NULL ? answers[i] : "") < 0)
					rc = SSH_AUTH_ERROR;
				conn_wipe(answers[i]);
			}
			if (rc == SSH_AUTH_ERROR)
				break;
			rc = ssh_userauth_kbdint(s, NULL, NULL);
		}
		if (rc == SSH_AUTH_SUCCESS)
			return TRY_OK;
		if (rc == SSH_AUTH_PARTIAL) {
			/* Yet another factor: ask again, same budget. */
			continue;
		}
		if (rc != SSH_AUTH_DENIED) {
			cause_set(why, "second-factor login to %s@%s:%u "
			    "failed: %s", user, host, port, ssh_get_error(s));
			return TRY_STOP;
		}
		denied++;
		snprintf(note, sizeof note, "The server refused that answer "
		    "(Permission denied). Try %d of %d:", attempt + 1,
		    CONN_KBDINT_TRIES);
	}
	cause_set(why, "login as %s@%s:%u: the server refused the second "
	    "factor %d times (Permission denied, keyboard-interactive). For "
	    "a one-time code, check the clock of the device that makes it; "
	    "a code is often accepted only once", user, host, port, denied);
	return TRY_STOP;
}

/*
 * The certificate that goes with the key: certificate: in clusters.yaml,
 * else KEY-cert.pub beside it (as OpenSSH looks for it).  0: none (or
 * loaded into key), -1: a reason to stop in *why (unreadable, expired,
 * not valid yet: named with its validity, never a bare refusal).
 */
static int
conn_cert(struct conn *c, ssh_key key, struct buf *tried, char **why)
{
	struct sshcert	 sc;
	ssh_key		 cert = NULL;
	char		*path, *text = NULL, *cause = NULL, *b64 = NULL;
	char		 a[64], b[64];
	int		 when, given = c->cert_path != NULL;

	path = given ? xstrdup(c->cert_path) :
	    xasprintf("%s-cert.pub", c->key_path);
	if (!given && access(path, F_OK) != 0) {
		free(path);
		return 0;
	}
	if (file_read_max(path, 64 * 1024, &text, NULL, &cause) != 0 ||
	    sshcert_parse(text, &sc, &cause) != 0) {
		cause_set(why, "certificate %s: %s (fix the certificate "
		    "setting, or get a new one with your site's tool)", path,
		    cause);
		goto fail;
	}
	sshcert_time(sc.valid_after, a, sizeof a);
	sshcert_time(sc.valid_before, b, sizeof b);
	when = sshcert_when(&sc, time(NULL));
	if (when != 0) {
		cause_set(why, "certificate %s (key id '%s') %s: it is valid "
		    "from %s to %s. %s", path, sc.key_id,
		    when > 0 ? "has expired" : "is not valid yet", a, b,
		    when > 0 ? "Renew it with your site's tool (the one that "
		    "issued it: sshproxy, step ssh, the portal), then retry" :
		    "Check this machine's clock, or renew it with your site's "
		    "tool");
		sshcert_free(&sc);
		goto fail;
	}
	if (ssh_pki_export_pubkey_base64(key, &b64) != SSH_OK ||
	    !sshcert_matches(&sc, b64) ||
	    ssh_pki_import_cert_file(path, &cert) != SSH_OK ||
	    ssh_pki_copy_cert_to_privkey(cert, key) != SSH_OK) {
		sshcert_free(&sc);
		ssh_string_free_char(b64);
		cause_set(why, "certificate %s does not go with the key %s: "
		    "give the key it was issued for (key:) or its own "
		    "certificate (certificate:)", path, c->key_path);
		ssh_key_free(cert);
		goto fail;
	}
	sshcert_free(&sc);
	ssh_string_free_char(b64);
	ssh_key_free(cert);
	buf_printf(tried, "certificate %s (valid to %s) with ", path, b);
	free(path);
	free(text);
	return 0;
fail:
	free(cause);
	free(path);
	free(text);
	return -1;
}

/*
 * Authentication: the given key, then the agent and the IdentityFile keys;
 * a second factor after the key goes through conn_kbdint().  A password is
 * never tried.
 */
int
conn_auth(struct conn *c, ssh_session s, const char *user, const char *host,
    unsigned int port, char **why)
{
	struct buf	 tried;
	ssh_key		 key = NULL;
	int		 rc, methods, partial = 0;
	const char	*agent = getenv("SSH_AUTH_SOCK");
	char		*pub, *copy;

	buf_init(&tried);
	rc = ssh_userauth_none(s, NULL);
	if (rc == SSH_AUTH_SUCCESS)
		goto ok;
	if (rc == SSH_AUTH_ERROR)
		goto error;
	methods = ssh_userauth_list(s, NULL);
	if (methods != 0 && (methods & SSH_AUTH_METHOD_PUBLICKEY) == 0) {
		cause_set(why, "%s@%s:%u does not accept SSH keys (it offers "
		    "%s%s%s), and sqdeck never sends a password: ask the "
		    "cluster's admins how to log in with a key (clusters with "
		    "2FA need one set up for non-interactive use)", user, host,
		    port,
		    (methods & SSH_AUTH_METHOD_PASSWORD) ? "password " : "",
		    (methods & SSH_AUTH_METHOD_INTERACTIVE) ?
		    "keyboard-interactive " : "",
		    (methods & SSH_AUTH_METHOD_GSSAPI_MIC) ? "gssapi" : "");
		buf_free(&tried);
		return TRY_STOP;
	}

	if (c->key_path != NULL) {
		struct stat	sb;

		if (access(c->key_path, R_OK) != 0) {
			buf_printf(&tried, "key %s (cannot read it: %s)",
			    c->key_path, strerror(errno));
		} else if (stat(c->key_path, &sb) == 0 &&
		    sb.st_uid == getuid() && (sb.st_mode & 077) != 0) {
			/* As OpenSSH: a key others can read is not used. */
			buf_printf(&tried, "key %s (ignored: permissions %04o "
			    "are too open; it is required that your private "
			    "key files are NOT accessible by others, as "
			    "OpenSSH says: chmod 600 %s)", c->key_path,
			    (unsigned)(sb.st_mode & 07777), c->key_path);
		} else if (ssh_pki_import_privkey_file(c->key_path, NULL,
		    conn_auth_refuse, NULL, &key) != SSH_OK) {
			buf_printf(&tried, "key %s (cannot load it: "
			    "passphrase-protected or not a private key; load "
			    "it into ssh-agent with ssh-add %s)", c->key_path,
			    c->key_path);
		} else if (conn_cert(c, key, &tried, why) != 0) {
			ssh_key_free(key);
			buf_free(&tried);
			return TRY_STOP;
		} else {
			rc = ssh_userauth_publickey(s, NULL, key);
			ssh_key_free(key);
			buf_printf(&tried, "key %s (%s)", c->key_path,
			    conn_auth_word(rc));
			if (rc == SSH_AUTH_SUCCESS)
				goto ok;
			if (rc == SSH_AUTH_ERROR)
				goto error;
			if (rc == SSH_AUTH_PARTIAL) {
				buf_free(&tried);
				return conn_kbdint(c, s, user, host, port,
				    why);
			}
		}
	}

	/* Agent, then IdentityFile keys; the callback refuses passphrases. */
	rc = ssh_userauth_publickey_auto(s, NULL, NULL);
	if (rc == SSH_AUTH_SUCCESS)
		goto ok;
	if (rc == SSH_AUTH_ERROR)
		goto error;
	if (rc == SSH_AUTH_PARTIAL)
		partial = 1;
	buf_printf(&tried, "%sssh-agent (%s), IdentityFile/default keys "
	    "(none accepted)", tried.len ? ", " : "",
	    agent != NULL && *agent != '\0' ? "no key accepted" :
	    "SSH_AUTH_SOCK not set");

	if (partial) {
		buf_free(&tried);
		return conn_kbdint(c, s, user, host, port, why);
	}
	pub = c->key_path != NULL ? xasprintf("%s.pub", c->key_path) :
	    xstrdup("~/.ssh/id_ed25519.pub");
	if (port == 22)
		copy = xasprintf("ssh-copy-id -i %s %s@%s", pub, user, host);
	else
		copy = xasprintf("ssh-copy-id -i %s -p %u %s@%s", pub, port,
		    user, host);
	cause_set(why, "login refused for %s@%s:%u: tried %s. Install your "
	    "public key on the cluster (%s), or load a key it accepts into "
	    "ssh-agent (ssh-add). sqdeck never asks for a password: "
	    "clusters with passwords or 2FA need a key set up first",
	    user, host, port, tried.data, copy);
	free(copy);
	free(pub);
	buf_free(&tried);
	return TRY_STOP;

error:
	cause_set(why, "login to %s@%s:%u failed: %s", user, host, port,
	    ssh_get_error(s));
	buf_free(&tried);
	return TRY_NEXT;
ok:
	buf_free(&tried);
	return TRY_OK;
}
