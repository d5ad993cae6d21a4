/*
 * The submit wizard's keys: typing, cursor movement, cycling choices,
 * moving between fields, and the checks before the preview.
 */
#include "ui-wizard-int.h"

/* Left/Right on a field with choices. */
static int
cycle(struct wizard *w, int dir)
{
	const struct wizard_cluster	*c;
	size_t				 i, n;
	char				*p;

	if (w->field == WF_CLUSTER && w->ncl > 0) {
		for (i = 0; i < w->ncl; i++) {
			if (strcmp(w->cl[i].name, wz_val(w, WF_CLUSTER)) == 0)
				break;
		}
		i = i == w->ncl ? 0 : (i + w->ncl + dir) % w->ncl;
		wz_set(w, WF_CLUSTER, w->cl[i].name);
		wz_defaults_for_cluster(w);
		return 1;
	}
	if (w->field == WF_REQUEUE || w->field == WF_FORCE_RECONVERT) {
		int	on = 0;

		wz_yes_no(wz_val(w, w->field), &on);
		wz_set(w, w->field, on ? "no" : "yes");
		return 1;
	}
	c = wz_find_cluster(w, wz_val(w, WF_CLUSTER));
	if (w->field == WF_PARTITION && c != NULL && c->partitions != NULL &&
	    (n = c->partitions->n) > 0) {
		for (i = 0; i < n; i++) {
			if (wz_has_partition(c, wz_val(w, WF_PARTITION)) &&
			    strncmp(c->partitions->v[i], wz_val(w, WF_PARTITION),
			    strlen(wz_val(w, WF_PARTITION))) == 0 &&
			    c->partitions->v[i][strlen(wz_val(w,
			    WF_PARTITION))] == ' ')
				break;
		}
		i = i == n ? 0 : (i + n + dir) % n;
		p = xstrndup(c->partitions->v[i],
		    strcspn(c->partitions->v[i], " "));
		wz_set(w, WF_PARTITION, p);
		free(p);
		return 1;
	}
	return 0;
}

/* Insert at the cursor; a NUL stays at the end. */
static void
insert_at(struct wizard *w, const char *s, size_t len)
{
	struct buf	*b = &w->value[w->field];
	size_t		 at = wizard_cursor(w), tail = b->len - at;

	buf_add(b, s, len);	/* room, and the NUL */
	memmove(b->data + at + len, b->data + at, tail);
	memcpy(b->data + at, s, len);
	b->data[b->len] = '\0';
	wz_set_cursor(w, at + len);
}

void
wizard_type(struct wizard *w, const char *s, size_t len)
{
	if (w->page != WIZ_FORM)
		return;
	insert_at(w, s, len);
	if (w->field == WF_CLUSTER && wz_find_cluster(w, wz_val(w, WF_CLUSTER)))
		wz_defaults_for_cluster(w);
	wizard_validate(w);
}

/* Start of the UTF-8 character before at, or after it. */
static size_t
char_prev(const struct buf *b, size_t at)
{
	while (at > 0) {
		at--;
		if (((unsigned char)b->data[at] & 0xc0) != 0x80)
			break;
	}
	return at;
}

static size_t
char_next(const struct buf *b, size_t at)
{
	if (at < b->len)
		at++;
	while (at < b->len && ((unsigned char)b->data[at] & 0xc0) == 0x80)
		at++;
	return at;
}

/* Remove bytes [from, to) of the current field; the cursor goes to from. */
static void
cut(struct wizard *w, size_t from, size_t to)
{
	struct buf	*b = &w->value[w->field];

	if (to <= from || b->data == NULL)
		return;
	memmove(b->data + from, b->data + to, b->len - to);
	b->len -= to - from;
	b->data[b->len] = '\0';
	wz_set_cursor(w, from);
}

static int
first_error(const struct wizard *w)
{
	int	f;

	for (f = 0; f < WF_COUNT; f++) {
		if (w->error[f] != NULL)
			return f;
	}
	return -1;
}

/*
 * A secret not set in this environment stops a submit: refuse it before
 * the preview, not after it.  Returns -1 (the field's error set) or 0.
 */
static int
secrets_missing(struct wizard *w)
{
	struct strv	 items;
	struct buf	 missing;
	const char	*v;
	size_t		 i;
	int		 rc = 0;

	memset(&items, 0, sizeof items);
	buf_init(&missing);
	wz_split_list(wz_val(w, WF_SECRETS), &items);
	for (i = 0; i < items.n; i++) {
		v = getenv(items.v[i]);
		if (v == NULL || *v == '\0')
			buf_printf(&missing, "%s%s", missing.len ? ", " : "",
			    items.v[i]);
	}
	if (missing.len > 0) {
		wz_field_error(w, WF_SECRETS, xasprintf("not set in this "
		    "environment: %s; a submit stops on it, so there is no "
		    "preview: export it and start sqdeck again, or take it "
		    "off the list", missing.data));
		rc = -1;
	}
	strv_free(&items);
	buf_free(&missing);
	return rc;
}

static enum wizard_req
form_key(struct wizard *w, enum uiact a, enum wizard_keyname key)
{
	size_t	at;

	switch (a) {
	case UIA_WIZ_NEXT:
		/* Enter on the last field: on to the preview if all is well. */
		if (w->field == WF_COUNT - 1 && key == WK_ENTER) {
			if (wizard_validate(w) != 0) {
				w->field = first_error(w);
				return WREQ_REDRAW;
			}
			if (secrets_missing(w) != 0) {
				w->field = WF_SECRETS;
				return WREQ_REDRAW;
			}
			return WREQ_PREVIEW;
		}
		w->field = (w->field + 1) % WF_COUNT;
		return WREQ_REDRAW;
	case UIA_WIZ_PREV:
		w->field = (w->field + WF_COUNT - 1) % WF_COUNT;
		return WREQ_REDRAW;
	case UIA_INPUT_BACKSPACE:
		at = wizard_cursor(w);
		cut(w, char_prev(&w->value[w->field], at), at);
		wizard_validate(w);
		return WREQ_REDRAW;
	case UIA_INPUT_DELETE:
		at = wizard_cursor(w);
		cut(w, at, char_next(&w->value[w->field], at));
		wizard_validate(w);
		return WREQ_REDRAW;
	case UIA_CURSOR_LEFT:
	case UIA_CURSOR_RIGHT:
		/* Fields with choices cycle through them. */
		if (cycle(w, a == UIA_CURSOR_LEFT ? -1 : 1)) {
			wizard_validate(w);
			return WREQ_REDRAW;
		}
		at = wizard_cursor(w);
		wz_set_cursor(w, a == UIA_CURSOR_LEFT ?
		    char_prev(&w->value[w->field], at) :
		    char_next(&w->value[w->field], at));
		return WREQ_REDRAW;
	case UIA_CURSOR_HOME:
		wz_set_cursor(w, 0);
		return WREQ_REDRAW;
	case UIA_CURSOR_END:
		w->cursor_field = -1;
		return WREQ_REDRAW;
	case UIA_INPUT_KILL:
		wz_set(w, w->field, "");
		wizard_validate(w);
		return WREQ_REDRAW;
	case UIA_CLOSE:
		return WREQ_CLOSE;
	default:
		break;
	}
	if (key == WK_LEFT || key == WK_RIGHT) {
		if (cycle(w, key == WK_LEFT ? -1 : 1)) {
			wizard_validate(w);
			return WREQ_REDRAW;
		}
	}
	return WREQ_NONE;
}

enum wizard_req
wizard_key(struct wizard *w, enum uiact a, enum wizard_keyname key)
{
	switch (w->page) {
	case WIZ_FORM:
		return form_key(w, a, key);
	case WIZ_PREVIEW:
		if (a == UIA_CLOSE || a == UIA_INPUT_BACKSPACE) {
			/* Back to the form; a late dry-run answer is dropped. */
			w->page = WIZ_FORM;
			w->waiting = 0;
			return WREQ_REDRAW;
		}
		if (a == UIA_WIZ_NEXT && key == WK_ENTER) {
			if (w->waiting || w->preview.n == 0)
				return WREQ_NONE;
			return WREQ_SUBMIT;
		}
		if (a == UIA_WIZ_NEXT || key == WK_PAGE_DOWN) {
			size_t	step = a == UIA_WIZ_NEXT ? 1 : 10;

			if (w->preview_top + step < w->preview.n)
				w->preview_top += step;
			return WREQ_REDRAW;
		}
		if (a == UIA_WIZ_PREV || key == WK_PAGE_UP) {
			size_t	step = a == UIA_WIZ_PREV ? 1 : 10;

			w->preview_top = w->preview_top > step ?
			    w->preview_top - step : 0;
			return WREQ_REDRAW;
		}
		return WREQ_NONE;
	case WIZ_PROGRESS:
		if (w->waiting)
			return a == UIA_CLOSE ? WREQ_CLOSE : WREQ_NONE;
		if (a == UIA_CLOSE || a == UIA_WIZ_NEXT) {
			if (w->finished) {
				w->opened = 0;	/* the next n starts afresh */
				w->page = WIZ_FORM;
			}
			return WREQ_CLOSE;
		}
		return WREQ_NONE;
	}
	return WREQ_NONE;
}
