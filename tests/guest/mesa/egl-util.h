/*
 * EGL and GLES set-up shared by the Mesa guest's GLES programs: a context
 * without a window (EGL_KHR_no_config_context, EGL_KHR_surfaceless_context)
 * on the surfaceless platform (the GPU's render node) or on EGL's software
 * device (llvmpipe); shaders, programs, a texture-backed framebuffer.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef AGX_GUEST_EGL_UTIL_H
#define AGX_GUEST_EGL_UTIL_H

#include <stdbool.h>
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl31.h>

typedef struct EglCtx {
    EGLDisplay dpy;
    EGLContext ctx;
    EGLint major, minor;        /* EGL's version */
} EglCtx;

/*
 * Makes an OpenGL ES @gles_major.@gles_minor context current, on the
 * software device (EGL_MESA_device_software) if @software, else on the
 * surfaceless platform.  NULL, or what failed ("no eglGetPlatformDisplayEXT",
 * "no surfaceless EGL display", "no software EGL device", "eglBindAPI",
 * "no GLES 3 context", "no GLES 3.1 context").
 */
const char *egl_open(EglCtx *e, bool software, int gles_major,
                     int gles_minor);
void egl_close(EglCtx *e);

/* A compiled shader, or 0 with "@who: shader: LOG" printed */
GLuint gl_shader(const char *who, GLenum kind, const char *src);

/*
 * A linked program of @n shaders compiled from @src[i] as @kind[i]; the
 * attributes @attrs (NULL-terminated, may be NULL) bound to locations 0,
 * 1, ... before linking.  0 on failure, with "@who: shader: LOG" printed
 * for a shader that does not compile.
 */
GLuint gl_program(const char *who, int n, const GLenum *kind,
                  const char *const *src, const char *const *attrs);

/*
 * A framebuffer (bound) whose colour attachment is a new @w x @h RGBA8
 * texture (*@tex), with a @depth_fmt renderbuffer as its depth attachment
 * unless @depth_fmt is 0.  0 if incomplete.
 */
GLuint gl_texture_fbo(GLsizei w, GLsizei h, GLenum depth_fmt, GLuint *tex);

#endif
