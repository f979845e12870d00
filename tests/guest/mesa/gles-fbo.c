/*
 * gles-fbo: a GLES program for the Mesa guest.  EGL on the surfaceless
 * platform (no display, no window), an OpenGL ES 3 context on Mesa's asahi
 * Gallium driver, a 256x256 RGBA8 texture as a framebuffer object, and
 * FRAMES frames (default 5) each cleared and drawn (one triangle) and
 * finished with glFinish.  Reports the renderer, the frames and the time
 * each took.  The model does not run shaders, so pixels are read back and
 * printed, not checked.
 *
 *   gles-fbo [-n FRAMES] [--grow]
 *
 * --grow: after the first frame (whose render binds the queue's tiled
 * vertex buffer with InitBuffer) asks the host (the "AGX-TEST: host:"
 * requests of boot-test.py) to inject grow-tvb, so that the next frame's
 * vertex job makes the firmware ask the kernel for a synchronous grow;
 * at the end the host checks that one GrowTVBAck came and the buffer
 * went from 8 to 18 blocks.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl3.h>

#define SIZE 256
#define GPU "/machine/gpu-asc"
/* Time for the host to act on a request before the guest goes on */
#define HOST_PAUSE_US (300 * 1000)

static const char *const vs_src =
    "#version 300 es\n"
    "in vec2 pos;\n"
    "void main() { gl_Position = vec4(pos, 0.0, 1.0); }\n";
static const char *const fs_src =
    "#version 300 es\n"
    "precision mediump float;\n"
    "uniform vec4 color;\n"
    "out vec4 frag;\n"
    "void main() { frag = color; }\n";

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int fail(const char *what)
{
    printf("gles-fbo: FAIL: %s (EGL 0x%x, GL 0x%x)\n", what, eglGetError(),
           glGetError());
    return 1;
}

static GLuint shader(GLenum kind, const char *src)
{
    GLuint s = glCreateShader(kind);
    GLint ok = 0;
    char msg[512];

    glShaderSource(s, 1, &src, NULL);
    glCompileShader(s);
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        glGetShaderInfoLog(s, sizeof(msg), NULL, msg);
        printf("gles-fbo: shader: %s\n", msg);
        return 0;
    }
    return s;
}

int main(int argc, char **argv)
{
    static const GLfloat tri[] = { -0.8f, -0.8f, 0.8f, -0.8f, 0.0f, 0.8f };
    static const EGLint ctx_attrs[] = {
        EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE
    };
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_display;
    EGLDisplay dpy;
    EGLContext ctx;
    EGLint major, minor;
    GLuint tex, fbo, prog, vs, fs, vbo, vao;
    GLint loc, link = 0;
    GLubyte px[4] = { 0 };
    int frames = 5, grow = 0, i;
    double t0, t1, t;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc) {
            frames = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--grow")) {
            grow = 1;
        }
    }
    if (grow && frames < 2) {
        frames = 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    t0 = now_ms();
    get_display = (PFNEGLGETPLATFORMDISPLAYEXTPROC)
        eglGetProcAddress("eglGetPlatformDisplayEXT");
    if (!get_display) {
        return fail("no eglGetPlatformDisplayEXT");
    }
    dpy = get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY,
                      NULL);
    if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, &major, &minor)) {
        return fail("no surfaceless EGL display");
    }
    if (!eglBindAPI(EGL_OPENGL_ES_API)) {
        return fail("eglBindAPI");
    }
    /* EGL_KHR_no_config_context and EGL_KHR_surfaceless_context */
    ctx = eglCreateContext(dpy, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT,
                           ctx_attrs);
    if (ctx == EGL_NO_CONTEXT ||
        !eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
        return fail("no GLES 3 context");
    }
    printf("gles-fbo: EGL %d.%d, %s, %s\n", major, minor,
           (const char *)glGetString(GL_RENDERER),
           (const char *)glGetString(GL_VERSION));

    glGenTextures(1, &tex);
    glBindTexture(GL_TEXTURE_2D, tex);
    glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, SIZE, SIZE);
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
                           GL_TEXTURE_2D, tex, 0);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) !=
        GL_FRAMEBUFFER_COMPLETE) {
        return fail("incomplete framebuffer");
    }
    vs = shader(GL_VERTEX_SHADER, vs_src);
    fs = shader(GL_FRAGMENT_SHADER, fs_src);
    if (!vs || !fs) {
        return fail("shader compilation");
    }
    prog = glCreateProgram();
    glAttachShader(prog, vs);
    glAttachShader(prog, fs);
    glBindAttribLocation(prog, 0, "pos");
    glLinkProgram(prog);
    glGetProgramiv(prog, GL_LINK_STATUS, &link);
    if (!link) {
        return fail("program link");
    }
    glUseProgram(prog);
    loc = glGetUniformLocation(prog, "color");
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glGenBuffers(1, &vbo);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof(tri), tri, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, NULL);
    glEnableVertexAttribArray(0);
    glViewport(0, 0, SIZE, SIZE);
    t1 = now_ms();
    printf("gles-fbo: set up in %.0f ms\n", t1 - t0);

    for (i = 0; i < frames; i++) {
        t = now_ms();
        glClearColor(0.1f * i, 0.2f, 0.3f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        glUniform4f(loc, 1.0f, 0.5f, 0.1f * i, 1.0f);
        glDrawArrays(GL_TRIANGLES, 0, 3);
        glFinish();
        if (glGetError() != GL_NO_ERROR) {
            return fail("frame");
        }
        printf("gles-fbo: frame %d: clear + 1 draw + glFinish in %.1f ms\n",
               i, now_ms() - t);
        if (grow && i == 0) {
            printf("AGX-TEST: host: qom-expect " GPU " tvb-blocks 8\n");
            printf("AGX-TEST: host: qom-save " GPU " tvb-grows grows\n");
            printf("AGX-TEST: host: qom-set " GPU " inject-fault "
                   "\"grow-tvb\"\n");
            usleep(HOST_PAUSE_US);
        }
    }
    if (grow) {
        printf("AGX-TEST: host: qom-delta " GPU " tvb-grows grows 1\n");
        printf("AGX-TEST: host: qom-expect " GPU " tvb-blocks 18\n");
        usleep(HOST_PAUSE_US);
    }
    glReadPixels(SIZE / 2, SIZE / 2, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, px);
    printf("gles-fbo: %d frames of %dx%d in %.0f ms; centre pixel "
           "%02x%02x%02x%02x (not checked: shaders do not run)\n",
           frames, SIZE, SIZE, now_ms() - t1, px[0], px[1], px[2], px[3]);
    eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(dpy, ctx);
    eglTerminate(dpy);
    printf("gles-fbo: PASS\n");
    return 0;
}
