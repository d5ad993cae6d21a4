/*
 * The notes of jobs a poll saw end (ends.h): files in the state directory.
 */
#include "ends.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

#define ENDS_DIR	"react-due"

static char *
ends_dir(void)
{
	char	*state = path_state_dir(), *dir;

	dir = xasprintf("%s/%s", state, ENDS_DIR);
	free(state);
	return dir;
}

void
ends_note(const char *cluster, const char *id)
{
	char	*dir = ends_dir(), *path;

	/* Record ids are safe file names (record.c). */
	path = xasprintf("%s/%s.due", dir, id);
	if (mkdir_p(dir, 0700, NULL) == 0)
		file_write_atomic(path, cluster, strlen(cluster), 0600, NULL);
	free(path);
	free(dir);
}

/*
 * Take the notes of cluster: each is renamed to a name of this process
 * first, so only one taker acts on it.  Returns the record ids.
 */
void
ends_take(const char *cluster, struct strv *ids)
{
	struct dirent	*de;
	DIR		*d;
	char		*dir = ends_dir(), *path, *mine, *text, *id;
	size_t		 len;

	memset(ids, 0, sizeof *ids);
	if ((d = opendir(dir)) == NULL) {
		free(dir);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		/* Not a claimed one (".ID.due.PID") nor a file being
		   written ("ID.due.tmp.PID"). */
		if (*de->d_name == '.' || !str_has_suffix(de->d_name, ".due"))
			continue;
		path = xasprintf("%s/%s", dir, de->d_name);
		text = NULL;
		if (file_read_max(path, 4096, &text, &len, NULL) == 0 &&
		    strlen(text) == len && strcmp(text, cluster) == 0) {
			mine = xasprintf("%s/.%s.%ld", dir, de->d_name,
			    (long)getpid());
			if (rename(path, mine) == 0) {
				id = xstrndup(de->d_name,
				    strlen(de->d_name) - 4);
				strv_add(ids, id);
				free(id);
				unlink(mine);
			}
			free(mine);
		}
		free(text);
		free(path);
	}
	closedir(d);
	free(dir);
}
