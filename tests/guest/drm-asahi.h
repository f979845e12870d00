/*
 * In-guest tests of the asahi DRM driver through its render node
 * (tests/guest/drm-asahi.c), called by /init's drm-* steps.
 */
#ifndef DRM_ASAHI_TEST_H
#define DRM_ASAHI_TEST_H

/* How the tests print a line (init.c's say()) */
typedef void (*drm_asahi_say_fn)(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/* Each returns 0 when every check passed */
int drm_asahi_test_params(drm_asahi_say_fn say);
int drm_asahi_test_gem(drm_asahi_say_fn say);
int drm_asahi_test_vm(drm_asahi_say_fn say);
int drm_asahi_test_queue(drm_asahi_say_fn say);
/* n submissions over several queues and VMs, chained by syncobjs */
int drm_asahi_test_submit(drm_asahi_say_fn say, int n);
int drm_asahi_test_teardown(drm_asahi_say_fn say);

#endif
