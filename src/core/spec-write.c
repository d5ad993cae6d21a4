/*
 * Writing a spec back as YAML (spec_write, see spec.h); the reader and
 * its checks are in spec.c.
 */
#include "spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

static int
emit_out(void *data, unsigned char *p, size_t n)
{
	buf_add(data, p, n);
	return 1;
}

/* Quote strings another YAML reader would take for null, bool or number. */
static int
needs_quotes(const char *s)
{
	static const char *words[] = {
		"~", "null", "true", "false", "yes", "no", "on", "off", "y",
		"n", NULL
	};
	char		*end;
	size_t		 i;

	if (*s == '\0')
		return 1;
	for (i = 0; words[i] != NULL; i++) {
		if (strcasecmp(s, words[i]) == 0)
			return 1;
	}
	(void)strtod(s, &end);
	return end != s && *end == '\0';
}

static int
emit_scalar(yaml_emitter_t *e, const char *s, yaml_scalar_style_t style)
{
	yaml_event_t	ev;

	if (style == YAML_ANY_SCALAR_STYLE && needs_quotes(s))
		style = YAML_SINGLE_QUOTED_SCALAR_STYLE;
	if (!yaml_scalar_event_initialize(&ev, NULL, NULL,
	    (yaml_char_t *)s, (int)strlen(s), 1, 1, style))
		return -1;
	return yaml_emitter_emit(e, &ev) ? 0 : -1;
}

static int
emit_plain(yaml_emitter_t *e, const char *s)
{
	return emit_scalar(e, s, YAML_PLAIN_SCALAR_STYLE);
}

static int
emit_kv(yaml_emitter_t *e, const char *key, const char *value)
{
	if (value == NULL)
		return 0;
	if (emit_plain(e, key) != 0)
		return -1;
	return emit_scalar(e, value, strchr(value, '\n') != NULL ?
	    YAML_LITERAL_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE);
}

static int
emit_int(yaml_emitter_t *e, const char *key, int v)
{
	char	s[32];

	snprintf(s, sizeof s, "%d", v);
	if (emit_plain(e, key) != 0)
		return -1;
	return emit_plain(e, s);
}

static int
emit_bool(yaml_emitter_t *e, const char *key, int v)
{
	if (emit_plain(e, key) != 0)
		return -1;
	return emit_plain(e, v ? "true" : "false");
}

static int
emit_start(yaml_emitter_t *e, int map)
{
	yaml_event_t	ev;

	if (map)
		yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
		    YAML_BLOCK_MAPPING_STYLE);
	else
		yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
		    YAML_BLOCK_SEQUENCE_STYLE);
	return yaml_emitter_emit(e, &ev) ? 0 : -1;
}

static int
emit_end(yaml_emitter_t *e, int map)
{
	yaml_event_t	ev;

	if (map)
		yaml_mapping_end_event_initialize(&ev);
	else
		yaml_sequence_end_event_initialize(&ev);
	return yaml_emitter_emit(e, &ev) ? 0 : -1;
}

/* after: {ok: [...], any: [...]}, the lists that are not empty. */
static int
emit_after(yaml_emitter_t *e, const struct spec *sp)
{
	const struct strv	*l[2] = { &sp->after_ok, &sp->after_any };
	static const char *const key[2] = { "ok", "any" };
	size_t			 i, k;

	if (emit_plain(e, "after") != 0 || emit_start(e, 1) != 0)
		return -1;
	for (k = 0; k < 2; k++) {
		if (l[k]->n == 0)
			continue;
		if (emit_plain(e, key[k]) != 0 || emit_start(e, 0) != 0)
			return -1;
		for (i = 0; i < l[k]->n; i++) {
			if (emit_scalar(e, l[k]->v[i],
			    YAML_ANY_SCALAR_STYLE) != 0)
				return -1;
		}
		if (emit_end(e, 0) != 0)
			return -1;
	}
	return emit_end(e, 1);
}

static int
emit_spec(yaml_emitter_t *e, const struct spec *sp)
{
	yaml_event_t	 ev;
	char		*t, *m;
	size_t		 i;
	int		 rc;

	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	if (!yaml_emitter_emit(e, &ev))
		return -1;
	yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
	if (!yaml_emitter_emit(e, &ev) || emit_start(e, 1) != 0)
		return -1;
	if (emit_kv(e, "name", sp->name) != 0 ||
	    emit_kv(e, "cluster", sp->cluster) != 0 ||
	    emit_kv(e, "image", sp->image) != 0 ||
	    emit_kv(e, "command", sp->command) != 0 ||
	    emit_kv(e, "network_arch", sp->network_arch) != 0 ||
	    emit_kv(e, "action", sp->action) != 0 ||
	    emit_kv(e, "partition", sp->partition) != 0 ||
	    emit_kv(e, "array", sp->array) != 0)
		return -1;
	if (sp->nodes > 0 && emit_int(e, "nodes", sp->nodes) != 0)
		return -1;
	if (sp->gpus >= 0 && emit_int(e, "gpus", sp->gpus) != 0)
		return -1;
	if (sp->gpus_per_node > 0 &&
	    emit_int(e, "gpus_per_node", sp->gpus_per_node) != 0)
		return -1;
	if (sp->cpus > 0 && emit_int(e, "cpus", sp->cpus) != 0)
		return -1;
	if (sp->time_minutes > 0) {
		/* Quoted: YAML 1.1 readers take 3:30:00 for a number. */
		t = xasprintf("%d:%02d:00", sp->time_minutes / 60,
		    sp->time_minutes % 60);
		rc = emit_plain(e, "time");
		if (rc == 0)
			rc = emit_scalar(e, t, YAML_SINGLE_QUOTED_SCALAR_STYLE);
		free(t);
		if (rc != 0)
			return -1;
	}
	if (sp->requeue >= 0 && emit_bool(e, "requeue", sp->requeue) != 0)
		return -1;
	if (emit_int(e, "retry_budget", sp->retry_budget) != 0)
		return -1;
	if (sp->force_reconvert &&
	    emit_bool(e, "force_reconvert", sp->force_reconvert) != 0)
		return -1;
	if ((sp->after_ok.n > 0 || sp->after_any.n > 0) &&
	    emit_after(e, sp) != 0)
		return -1;
	if (sp->datasets.n > 0) {
		if (emit_plain(e, "datasets") != 0 || emit_start(e, 0) != 0)
			return -1;
		for (i = 0; i < sp->datasets.n; i++) {
			if (emit_scalar(e, sp->datasets.v[i],
			    YAML_ANY_SCALAR_STYLE) != 0)
				return -1;
		}
		if (emit_end(e, 0) != 0)
			return -1;
	}
	if (sp->nmounts > 0) {
		if (emit_plain(e, "mounts") != 0 || emit_start(e, 0) != 0)
			return -1;
		for (i = 0; i < sp->nmounts; i++) {
			m = xasprintf("%s:%s%s", sp->mounts[i].src,
			    sp->mounts[i].dst, sp->mounts[i].ro ? ":ro" : "");
			rc = emit_scalar(e, m, YAML_ANY_SCALAR_STYLE);
			free(m);
			if (rc != 0)
				return -1;
		}
		if (emit_end(e, 0) != 0)
			return -1;
	}
	if (sp->nenv > 0) {
		if (emit_plain(e, "env") != 0 || emit_start(e, 1) != 0)
			return -1;
		for (i = 0; i < sp->nenv; i++) {
			if (emit_kv(e, sp->env[i].name, sp->env[i].value) != 0)
				return -1;
		}
		if (emit_end(e, 1) != 0)
			return -1;
	}
	if (sp->secrets.n > 0) {
		if (emit_plain(e, "secrets") != 0 || emit_start(e, 0) != 0)
			return -1;
		for (i = 0; i < sp->secrets.n; i++) {
			if (emit_plain(e, sp->secrets.v[i]) != 0)
				return -1;
		}
		if (emit_end(e, 0) != 0)
			return -1;
	}
	if (sp->nfiles > 0) {
		if (emit_plain(e, "files") != 0 || emit_start(e, 0) != 0)
			return -1;
		for (i = 0; i < sp->nfiles; i++) {
			if (emit_start(e, 1) != 0 ||
			    emit_kv(e, "path", sp->files[i].path) != 0 ||
			    emit_kv(e, "sha256", sp->files[i].sha256) != 0 ||
			    emit_end(e, 1) != 0)
				return -1;
		}
		if (emit_end(e, 0) != 0)
			return -1;
	}
	if (emit_end(e, 1) != 0)
		return -1;
	yaml_document_end_event_initialize(&ev, 1);
	if (!yaml_emitter_emit(e, &ev))
		return -1;
	yaml_stream_end_event_initialize(&ev);
	if (!yaml_emitter_emit(e, &ev))
		return -1;
	return yaml_emitter_flush(e) ? 0 : -1;
}

int
spec_write(const struct spec *sp, struct buf *out, char **cause)
{
	yaml_emitter_t	e;
	struct buf	b;
	int		rc;

	if (spec_validate(sp, cause) != 0)
		return -1;
	buf_init(&b);
	yaml_emitter_initialize(&e);
	yaml_emitter_set_output(&e, emit_out, &b);
	yaml_emitter_set_unicode(&e, 1);
	yaml_emitter_set_width(&e, -1);
	rc = emit_spec(&e, sp);
	if (rc != 0)
		cause_set(cause, "cannot write the job spec as YAML: %s",
		    e.problem != NULL ? e.problem : "emitter error");
	yaml_emitter_delete(&e);
	if (rc == 0)
		buf_add(out, b.data, b.len);
	buf_free(&b);
	return rc;
}

int
spec_resubmit_text(const char *text, size_t len, const char *name,
    const struct strv *secrets, struct buf *out, char **cause)
{
	struct spec	sp;
	char		*why = NULL;
	size_t		 i;
	int		 rc;

	if (memchr(text, '\0', len) != NULL)
		return cause_set(cause, "%s holds a NUL byte: it is not a spec "
		    "sqdeck wrote, so it is not offered for a resubmit", name);
	if (spec_parse(text, len, name, &sp, &why) != 0) {
		cause_set(cause, "%s no longer reads as a spec, so it is not "
		    "offered for a resubmit: %s", name, why);
		free(why);
		return -1;
	}
	/* Only the names the local record kept, never the file's. */
	strv_free(&sp.secrets);
	for (i = 0; secrets != NULL && i < secrets->n; i++)
		strv_add(&sp.secrets, secrets->v[i]);
	rc = spec_write(&sp, out, cause);
	spec_free(&sp);
	return rc;
}
