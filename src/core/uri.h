#ifndef URI_H
#define URI_H

/*
 * Storage URIs for a remote cluster (sqdeck(1): submit).  Pure: no I/O.
 *
 *	lustre:///abs/path		-> /abs/path
 *	slurm://results/rel/path	-> <results_root>/rel/path
 *
 * slurm:// is the form microservice metadata uses; "results" is its only
 * area.  file://, other schemes, plain local paths (absolute or relative)
 * and ".." components are refused: the cluster cannot read this machine's
 * files and data is never fetched inside the allocation.  Repeated '/' and
 * "." components are dropped; a trailing '/' is removed.
 */

/*
 * Resolve uri to an absolute path on the cluster's shared storage.  what
 * names the field in messages ("dataset", "mount source").  results_root
 * may be NULL when no slurm:// URI is expected.
 */
int	 uri_resolve(const char *what, const char *uri,
	     const char *results_root, char **path, char **cause);

#endif
