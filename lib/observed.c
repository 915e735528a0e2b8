// SPDX-License-Identifier: LGPL-2.1-or-later
/* The observed state: what evaluation reads about each cgroup. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libtier-private.h"

static const char *const empty_strv[] = { NULL };

bool attr_valid(enum tier_attr attr)
{
	return (int)attr >= 0 && attr < _TIER_ATTR_MAX;
}

void observed_cgroup_free(struct tier_observed_cgroup *c)
{
	if (!c)
		return;
	cgpath_unref(c->path);
	free(c->unit);
	tier_strv_free(c->exes);
	tier_strv_free(c->annotations);
	free(c);
}

_public_ int tier_observed_new(uint64_t fast_capacity, struct tier_observed **ret_observed)
{
	struct tier_observed *o;

	if (!ret_observed)
		return -EINVAL;
	o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	o->fast_capacity = fast_capacity;
	*ret_observed = o;
	return 0;
}

_public_ void tier_observed_free(struct tier_observed *observed)
{
	if (!observed)
		return;
	for (size_t i = 0; i < observed->n; i++)
		observed_cgroup_free(observed->cgroups[i]);
	free(observed->cgroups);
	free(observed);
}

_public_ uint64_t tier_observed_fast_capacity(const struct tier_observed *observed)
{
	return observed ? observed->fast_capacity : 0;
}

int observed_add_path(struct tier_observed *observed, struct cgpath *path,
		      struct tier_observed_cgroup **ret_cgroup)
{
	struct tier_observed_cgroup *c;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->path = cgpath_ref(path);
	if (ARRAY_PUSH(observed->cgroups, observed->n, observed->alloc, c) < 0) {
		observed_cgroup_free(c);
		return -ENOMEM;
	}
	c->mode = TIER_MODE_INHERIT;
	c->memory_high = UINT64_MAX;
	if (ret_cgroup)
		*ret_cgroup = c;
	return 0;
}

_public_ int tier_observed_add(struct tier_observed *observed, const char *path,
			       struct tier_observed_cgroup **ret_cgroup)
{
	struct cgpath *p;
	size_t len;
	int r;

	if (!observed || !path || path[0] != '/')
		return -EINVAL;
	len = strlen(path);
	if (len > CGPATH_LEN_MAX)
		return -ENAMETOOLONG;
	p = cgpath_new(path, len);
	if (!p)
		return -ENOMEM;
	r = observed_add_path(observed, p, ret_cgroup);
	cgpath_unref(p);
	return r;
}

void observed_drop_last(struct tier_observed *o)
{
	if (o->n > 0)
		observed_cgroup_free(o->cgroups[--o->n]);
}

_public_ size_t tier_observed_count(const struct tier_observed *observed)
{
	return observed ? observed->n : 0;
}

_public_ const struct tier_observed_cgroup *tier_observed_get(const struct tier_observed *observed,
							      size_t i)
{
	return observed && i < observed->n ? observed->cgroups[i] : NULL;
}

_public_ int tier_observed_cgroup_set_unit(struct tier_observed_cgroup *cgroup, const char *unit)
{
	char *u;

	if (!cgroup || !unit)
		return -EINVAL;
	u = strdup(unit);
	if (!u)
		return -ENOMEM;
	free(cgroup->unit);
	cgroup->unit = u;
	return 0;
}

static int push_copy(char ***strv, size_t *n, size_t *alloc, const char *s)
{
	char *c = strdup(s);

	if (!c)
		return -ENOMEM;
	if (strv_push(strv, n, alloc, c) < 0) {
		free(c);
		return -ENOMEM;
	}
	return 0;
}

_public_ int tier_observed_cgroup_add_exe(struct tier_observed_cgroup *cgroup, const char *exe)
{
	if (!cgroup || !exe)
		return -EINVAL;
	return push_copy(&cgroup->exes, &cgroup->n_exes, &cgroup->alloc_exes, exe);
}

_public_ int tier_observed_cgroup_add_annotation(struct tier_observed_cgroup *cgroup,
						 const char *annotation)
{
	if (!cgroup || !annotation || !strchr(annotation, '='))
		return -EINVAL;
	return push_copy(&cgroup->annotations, &cgroup->n_annotations,
			 &cgroup->alloc_annotations, annotation);
}

static size_t strv_len(char **strv)
{
	size_t n = 0;

	while (strv && strv[n])
		n++;
	return n;
}

void observed_cgroup_take_exes(struct tier_observed_cgroup *c, char **strv)
{
	tier_strv_free(c->exes);
	c->exes = strv;
	c->n_exes = c->alloc_exes = strv_len(strv);
	if (strv)
		c->alloc_exes++; /* strv_push() needs room for the NULL */
}

void observed_cgroup_take_annotations(struct tier_observed_cgroup *c, char **strv)
{
	tier_strv_free(c->annotations);
	c->annotations = strv;
	c->n_annotations = c->alloc_annotations = strv_len(strv);
	if (strv)
		c->alloc_annotations++;
}

_public_ int tier_observed_cgroup_set_current(struct tier_observed_cgroup *cgroup,
					      enum tier_attr attr, uint64_t value)
{
	if (!cgroup)
		return -EINVAL;
	switch (attr) {
	case TIER_ATTR_NUMA_BALANCING:
		if (value >= _TIER_MODE_MAX)
			return -EINVAL;
		cgroup->mode_supported = true;
		cgroup->mode = (enum tier_mode)value;
		return 0;
	case TIER_ATTR_MEMORY_LOW:
		cgroup->memory_low = value;
		return 0;
	case TIER_ATTR_MEMORY_HIGH:
		cgroup->memory_high = value;
		return 0;
	default:
		return -EINVAL;
	}
}

_public_ int tier_observed_cgroup_path(const struct tier_observed_cgroup *cgroup, char *buf,
				       size_t size)
{
	return cgroup ? cgpath_format(cgroup->path, buf, size) : -EINVAL;
}

_public_ const char *tier_observed_cgroup_unit(const struct tier_observed_cgroup *cgroup)
{
	return cgroup ? cgroup->unit : NULL;
}

_public_ const char *const *tier_observed_cgroup_exes(const struct tier_observed_cgroup *cgroup)
{
	return cgroup && cgroup->exes ? (const char *const *)cgroup->exes : empty_strv;
}

_public_ const char *const *
tier_observed_cgroup_annotations(const struct tier_observed_cgroup *cgroup)
{
	return cgroup && cgroup->annotations ? (const char *const *)cgroup->annotations :
					       empty_strv;
}

_public_ int tier_observed_cgroup_get_current(const struct tier_observed_cgroup *cgroup,
					      enum tier_attr attr, uint64_t *ret_value)
{
	uint64_t v;

	if (!cgroup || !ret_value)
		return -EINVAL;
	switch (attr) {
	case TIER_ATTR_NUMA_BALANCING:
		if (!cgroup->mode_supported)
			return -EOPNOTSUPP;
		v = (uint64_t)cgroup->mode;
		break;
	case TIER_ATTR_MEMORY_LOW:
		v = cgroup->memory_low;
		break;
	case TIER_ATTR_MEMORY_HIGH:
		v = cgroup->memory_high;
		break;
	default:
		return -EINVAL;
	}
	*ret_value = v;
	return 0;
}
