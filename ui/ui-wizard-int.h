/*
 * Private to the submit wizard's model (ui-wizard*.c): helpers one of its
 * files calls in another.
 */
#ifndef UI_WIZARD_INT_H
#define UI_WIZARD_INT_H

#include "ui-wizard.h"
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "image.h"
#include "plan.h"
#include "slurm.h"
#include "ui-text.h"
#include "uri.h"

/* ui-wizard.c */
const char *
wz_val(const struct wizard *w, enum wizard_field f);
void
wz_set(struct wizard *w, enum wizard_field f, const char *s);
void
wz_set_cursor(struct wizard *w, size_t at);
int
wz_blank(const char *s);
const struct wizard_cluster *
wz_find_cluster(const struct wizard *w, const char *name);
int
wz_yes_no(const char *s, int *out);
int
wz_user_ok(const char *s);
const char *
wz_conn_user(const struct wizard_cluster *c);
struct plan_limit *
wz_limits_of(const struct wizard_cluster *c, size_t *n, struct strv *names);
int
wz_has_partition(const struct wizard_cluster *c, const char *name);
void
wz_defaults_for_cluster(struct wizard *w);
void
wz_split_list(const char *s, struct strv *out);
int
wz_build_resources(const struct wizard *w, struct spec *sp, char **why);
void
wz_base_init(const struct wizard *w, struct spec *sp);

/* ui-wizard-after.c: the after field (afterok ids, any:ID afterany). */
int
wz_after_parse(const char *s, struct strv *ok, struct strv *any, char **why);
char *
wz_after_text(const struct strv *ok, const struct strv *any);
/* The preview's line: the --dependency value, or why the field is bad. */
char *
wz_after_line(const char *value);

/* ui-wizard-check.c */
void
wz_field_error(struct wizard *w, enum wizard_field f, char *msg);
enum wizard_field
wz_field_of(const char *m);

#endif
