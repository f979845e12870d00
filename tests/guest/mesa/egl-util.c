/*
 * EGL and GLES set-up of the Mesa guest's GLES programs (egl-util.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <string.h>

#include "egl-util.h"

static EGLDisplay software_display(void)
{
    PFNEGLQUERYDEVICESEXTPROC query_devices = (PFNEGLQUERYDEVICESEXTPROC)
        eglGetProcAddress("eglQueryDevicesEXT");
    PFNEGLQUERYDEVICESTRINGEXTPROC query_string =
        (PFNEGLQUERYDEVICESTRINGEXTPROC)
        eglGetProcAddress("eglQueryDeviceStringEXT");
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)
        eglGetProcAddress("eglGetPlatformDisplayEXT");
    EGLDeviceEXT devs[8];
    EGLint n = 0;

    if (!query_devices || !query_string || !get_display ||
        !query_devices(8, devs, &n)) {
        return EGL_NO_DISPLAY;
    }
    for (int i = 0; i < n; i++) {
        const char *ext = query_string(devs[i], EGL_EXTENSIONS);

        if (ext && strstr(ext, "EGL_MESA_device_software")) {
            return get_display(EGL_PLATFORM_DEVICE_EXT, devs[i], NULL);
        }
    }
    return EGL_NO_DISPLAY;
}

const char *egl_open(EglCtx *e, bool software, int gles_major,
                     int gles_minor)
{
    const EGLint ctx_attrs[] = {
        EGL_CONTEXT_MAJOR_VERSION, gles_major,
        EGL_CONTEXT_MINOR_VERSION, gles_minor, EGL_NONE
    };
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)
        eglGetProcAddress("eglGetPlatformDisplayEXT");

    e->dpy = EGL_NO_DISPLAY;
    e->ctx = EGL_NO_CONTEXT;
    if (software) {
        e->dpy = software_display();
        if (e->dpy == EGL_NO_DISPLAY ||
            !eglInitialize(e->dpy, &e->major, &e->minor)) {
            return "no software EGL device";
        }
    } else {
        if (!get_display) {
            return "no eglGetPlatformDisplayEXT";
        }
        e->dpy = get_display(EGL_PLATFORM_SURFACELESS_MESA,
                             EGL_DEFAULT_DISPLAY, NULL);
        if (e->dpy == EGL_NO_DISPLAY ||
            !eglInitialize(e->dpy, &e->major, &e->minor)) {
            return "no surfaceless EGL display";
        }
    }
    if (!eglBindAPI(EGL_OPENGL_ES_API)) {
        return "eglBindAPI";
    }
    e->ctx = eglCreateContext(e->dpy, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT,
                              ctx_attrs);
    if (e->ctx == EGL_NO_CONTEXT ||
        !eglMakeCurrent(e->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, e->ctx)) {
        return gles_minor ? "no GLES 3.1 context" : "no GLES 3 context";
    }
    return NULL;
}

void egl_close(EglCtx *e)
{
    eglMakeCurrent(e->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(e->dpy, e->ctx);
    eglTerminate(e->dpy);
}

GLuint gl_shader(const char *who, GLenum kind, const char *src)
{
    GLuint s = glCreateShader(kind);
    GLint ok = 0;
    char msg[512];

    glShaderSource(s, 1, &src, NULL);
    glCompileShader(s);
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        glGetShaderInfoLog(s, sizeof(msg), NULL, msg);
        printf("%s: shader: %s\n", who, msg);
        glDeleteShader(s);
        return 0;
    }
    return s;
}

GLuint gl_program(const char *who, int n, const GLenum *kind,
                  const char *const *src, const char *const *attrs)
{
    GLuint prog = glCreateProgram();
    GLint ok = 0;

    for (int i = 0; i < n; i++) {
        GLuint s = gl_shader(who, kind[i], src[i]);

        if (!s) {
            glDeleteProgram(prog);
            return 0;
        }
        glAttachShader(prog, s);
        glDeleteShader(s);
    }
    for (GLuint i = 0; attrs && attrs[i]; i++) {
        glBindAttribLocation(prog, i, attrs[i]);
    }
    glLinkProgram(prog);
    glGetProgramiv(prog, GL_LINK_STATUS, &ok);
    if (!ok) {
        glDeleteProgram(prog);
        return 0;
    }
    return prog;
}

GLuint gl_texture_fbo(GLsizei w, GLsizei h, GLenum depth_fmt, GLuint *tex)
{
    GLuint fbo, depth;

    glGenTextures(1, tex);
    glBindTexture(GL_TEXTURE_2D, *tex);
    glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, w, h);
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
                           GL_TEXTURE_2D, *tex, 0);
    if (depth_fmt) {
        glGenRenderbuffers(1, &depth);
        glBindRenderbuffer(GL_RENDERBUFFER, depth);
        glRenderbufferStorage(GL_RENDERBUFFER, depth_fmt, w, h);
        glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT,
                                  GL_RENDERBUFFER, depth);
    }
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) !=
        GL_FRAMEBUFFER_COMPLETE) {
        return 0;
    }
    return fbo;
}
