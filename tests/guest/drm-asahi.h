/*
 * In-guest tests of the asahi DRM driver through its render node
 * (tests/guest/drm-asahi.c), called by /init's drm-* steps.
 */
#ifndef DRM_ASAHI_TEST_H
#define DRM_ASAHI_TEST_H

/* How the tests print a line (init.c's say()) */
typedef void (*drm_asahi_say_fn)(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/*
 * Each returns 0 when every check passed.  n submissions over several
 * queues and VMs, chained by syncobjs; teardown with jobs in flight.
 */
int drm_asahi_test_submit(drm_asahi_say_fn say, int n);
int drm_asahi_test_teardown(drm_asahi_say_fn say);

#endif
