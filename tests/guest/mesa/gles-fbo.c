/*
 * gles-fbo: a GLES program for the Mesa guest.  EGL on the surfaceless
 * platform (no display, no window), an OpenGL ES 3 context on Mesa's asahi
 * Gallium driver, a 256x256 RGBA8 texture as a framebuffer object, and
 * FRAMES frames (default 5) each cleared and drawn (one triangle) and
 * finished with glFinish.  Reports the renderer, the frames and the time
 * each took.  Before the frames, and after them, it reads pixels back and
 * checks them against what GLES defines, one TAP line per check ("ok N
 * name" or "not ok N name - why", judged on the host by
 * scripts/tap-check.py):
 *
 *   clear            a full glClear: every pixel the clear colour
 *   scissored-clear  a glClear inside a scissor rectangle: the colour
 *                    inside it, the previous one outside
 *   draw             the last frame: the triangle's colour at the centre,
 *                    the clear colour in the corners
 *
 * The exit status is 0 when the checks ran (whatever their verdicts), 1
 * when EGL or GLES could not be set up.
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
#include <unistd.h>

#include "egl-util.h"
#include "tap.h"

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

static int fail(const char *what)
{
    printf("gles-fbo: FAIL: %s (EGL 0x%x, GL 0x%x)\n", what, eglGetError(),
           glGetError());
    return 1;
}

/*
 * One TAP line: the pixels of (x, y, w, h) read back against @want, and
 * the others against @outside (NULL: not checked)
 */
static void check_pixels(const char *name, GLint x, GLint y, GLint w,
                         GLint h, const GLubyte *want,
                         const GLubyte *outside)
{
    static GLubyte px[SIZE * SIZE * 4];
    int bad = 0, bx = 0, by = 0;
    const GLubyte *e = NULL;

    memset(px, 0, sizeof(px));
    glReadPixels(0, 0, SIZE, SIZE, GL_RGBA, GL_UNSIGNED_BYTE, px);
    for (int j = 0; j < SIZE; j++) {
        for (int i = 0; i < SIZE; i++) {
            int in = i >= x && i < x + w && j >= y && j < y + h;
            const GLubyte *want_px = in ? want : outside;

            if (want_px && memcmp(px + 4 * (j * SIZE + i), want_px, 4)) {
                if (!bad++) {
                    bx = i;
                    by = j;
                    e = want_px;
                }
            }
        }
    }
    if (!bad) {
        tap_ok(name);
        return;
    }
    tap_fail(name, "%d pixels differ, first (%d, %d): %02x%02x%02x%02x"
             " (want %02x%02x%02x%02x)", bad, bx, by,
             px[4 * (by * SIZE + bx)], px[4 * (by * SIZE + bx) + 1],
             px[4 * (by * SIZE + bx) + 2], px[4 * (by * SIZE + bx) + 3],
             e[0], e[1], e[2], e[3]);
}

int main(int argc, char **argv)
{
    static const GLfloat tri[] = { -0.8f, -0.8f, 0.8f, -0.8f, 0.0f, 0.8f };
    static const GLenum kinds[] = { GL_VERTEX_SHADER, GL_FRAGMENT_SHADER };
    static const char *const srcs[] = { vs_src, fs_src };
    static const char *const attrs[] = { "pos", NULL };
    EglCtx e;
    const char *err;
    GLuint tex, prog, vbo, vao;
    GLint loc;
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
    err = egl_open(&e, false, 3, 0);
    if (err) {
        return fail(err);
    }
    printf("gles-fbo: EGL %d.%d, %s, %s\n", e.major, e.minor,
           (const char *)glGetString(GL_RENDERER),
           (const char *)glGetString(GL_VERSION));

    if (!gl_texture_fbo(SIZE, SIZE, 0, &tex)) {
        return fail("incomplete framebuffer");
    }
    prog = gl_program("gles-fbo", 2, kinds, srcs, attrs);
    if (!prog) {
        return fail("program");
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

    /* Clears: values k/255 exactly (0.2 = 51/255), no rounding ties */
    {
        static const GLubyte c1[4] = { 51, 102, 153, 255 };
        static const GLubyte c2[4] = { 255, 204, 0, 255 };

        glClearColor(0.2f, 0.4f, 0.6f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        check_pixels("clear", 0, 0, SIZE, SIZE, c1, NULL);
        glEnable(GL_SCISSOR_TEST);
        glScissor(40, 72, 100, 60);
        glClearColor(1.0f, 0.8f, 0.0f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        glDisable(GL_SCISSOR_TEST);
        check_pixels("scissored-clear", 40, 72, 100, 60, c2, c1);
    }

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
           "%02x%02x%02x%02x\n",
           frames, SIZE, SIZE, now_ms() - t1, px[0], px[1], px[2], px[3]);
    {
        /*
         * The last frame: clear (0.1 i, 0.2, 0.3, 1), the triangle (1,
         * 0.5, 0.1 i, 1): its centre, and a corner it leaves
         */
        int last = frames - 1;
        GLubyte tri_c[4] = { 255, 128, 0, 255 }, clr[4];
        GLubyte centre[16 * 16 * 4], corner[4];
        int bad = 0;

        tri_c[2] = (GLubyte)(0.1 * last * 255 + 0.5);
        clr[0] = (GLubyte)(0.1 * last * 255 + 0.5);
        clr[1] = 51;
        clr[2] = 77;
        clr[3] = 255;
        glReadPixels(SIZE / 2 - 8, SIZE / 2 - 8, 16, 16, GL_RGBA,
                     GL_UNSIGNED_BYTE, centre);
        for (int k = 0; k < 16 * 16; k++) {
            /* 0.5 is 127.5: either neighbour is right */
            bad += abs(centre[4 * k] - tri_c[0]) > 0 ||
                   abs(centre[4 * k + 1] - tri_c[1]) > 1 ||
                   abs(centre[4 * k + 2] - tri_c[2]) > 1 ||
                   centre[4 * k + 3] != 255;
        }
        glReadPixels(2, SIZE - 3, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, corner);
        bad += abs(corner[0] - clr[0]) > 1 || corner[1] != clr[1] ||
               abs(corner[2] - clr[2]) > 1 || corner[3] != 255;
        if (bad) {
            tap_fail("draw", "%d of 257 pixels differ: centre "
                     "%02x%02x%02x%02x corner %02x%02x%02x%02x", bad,
                     centre[0], centre[1], centre[2], centre[3],
                     corner[0], corner[1], corner[2], corner[3]);
        } else {
            tap_ok("draw");
        }
    }
    egl_close(&e);
    printf("gles-fbo: PASS\n");
    return 0;
}
