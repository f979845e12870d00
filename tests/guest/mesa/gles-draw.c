/*
 * gles-draw: GLES draws checked against a CPU reference, for the Mesa
 * guest.  EGL on the surfaceless platform, an OpenGL ES 3 context on
 * Mesa's asahi Gallium driver, a 64x64 RGBA8 texture as a framebuffer
 * object; each check renders, reads the whole image back with
 * glReadPixels and compares it with what the GL specification says the
 * pixels are, computed here:
 *
 *   clear/full           glClear of the whole framebuffer
 *   clear/scissor        a scissored glClear over a full one
 *   draw/flat            a solid-colour triangle over a clear, checked
 *                        at pixels whose centre is more than half a pixel
 *                        inside or outside every edge (the others may go
 *                        either way with the fill rule)
 *   draw/interpolated    a triangle with a colour per vertex: pixels
 *                        inside by half a pixel within 2/255 of the
 *                        barycentric interpolation at their centre
 *   draw/indexed-strip   a quad as an indexed triangle strip
 *                        (glDrawElements, u16 indices): as draw/flat
 *   draw/cull-back       glCullFace(GL_BACK) with a clockwise and a
 *                        counter-clockwise triangle: only the latter
 *   draw/fan             a pentagon as a triangle fan
 *   draw/restart-strip   two quads in one indexed strip split by the
 *                        primitive restart index (0xffff)
 *   draw/instanced       glDrawArraysInstanced: 2 instances of a
 *                        triangle, the second moved by gl_InstanceID
 *   draw/points          4x4-pixel points (gl_PointSize) at pixel corners
 *
 * Colours are exact but for the rounding of float to 8-bit unorm (within
 * 1/255).  Each check is one TAP line ("ok N name", "not ok N name - why");
 * scripts/tap-check.py judges them against the list of checks that must
 * pass (scripts/check.sh GLES_DRAW_EXPECT).
 *
 *   gles-draw [--ppm]      --ppm: also print the last image as a PPM
 *                          between "gles-draw: ppm begin/end" lines
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "egl-util.h"
#include "tap.h"

#define SIZE 64

static const char *const vs_src =
    "#version 300 es\n"
    "in vec2 pos;\n"
    "in vec4 col;\n"
    "out vec4 v_col;\n"
    "void main() { gl_Position = vec4(pos, 0.0, 1.0); v_col = col; }\n";
/* The same, moved right by half the viewport per instance, with points */
static const char *const vs_inst_src =
    "#version 300 es\n"
    "in vec2 pos;\n"
    "in vec4 col;\n"
    "out vec4 v_col;\n"
    "void main() {\n"
    "    gl_Position = vec4(pos.x + 1.0 * float(gl_InstanceID), pos.y,\n"
    "                       0.0, 1.0);\n"
    "    gl_PointSize = 4.0;\n"
    "    v_col = col;\n"
    "}\n";
static const char *const fs_src =
    "#version 300 es\n"
    "precision highp float;\n"
    "in vec4 v_col;\n"
    "out vec4 frag;\n"
    "void main() { frag = v_col; }\n";

static uint8_t img[SIZE * SIZE * 4];

/* A vertex: NDC position and colour */
typedef struct Vert {
    float x, y;
    float r, g, b, a;
} Vert;

static uint8_t unorm8(float f)
{
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    return (uint8_t)lrintf(f * 255.0f);
}

/* Window position of NDC (x, y) with glViewport(0, 0, SIZE, SIZE) */
static void window(const Vert *v, float *wx, float *wy)
{
    *wx = (v->x + 1) * SIZE / 2;
    *wy = (v->y + 1) * SIZE / 2;
}

/*
 * Where pixel (px, py)'s centre is relative to triangle @t: 1 inside by
 * more than half a pixel, -1 outside by more than that, 0 too close to
 * call; with its barycentric weights in @w
 */
static int classify(const Vert *t, int px, int py, float w[3])
{
    float x[3], y[3], cx = px + 0.5f, cy = py + 0.5f, area;
    int inside = 1;

    for (int i = 0; i < 3; i++) {
        window(&t[i], &x[i], &y[i]);
    }
    area = (x[1] - x[0]) * (y[2] - y[0]) - (x[2] - x[0]) * (y[1] - y[0]);
    for (int i = 0; i < 3; i++) {
        int a = (i + 1) % 3, b = (i + 2) % 3;
        float e = (x[b] - x[a]) * (cy - y[a]) - (y[b] - y[a]) * (cx - x[a]);
        float len = hypotf(x[b] - x[a], y[b] - y[a]);
        float d = e / len * (area > 0 ? 1 : -1);

        w[i] = e / area;
        if (d < -0.5f) {
            return -1;
        }
        if (d < 0.5f) {
            inside = 0;
        }
    }
    return inside;
}

static void read_image(void)
{
    memset(img, 0xcd, sizeof(img));
    glReadPixels(0, 0, SIZE, SIZE, GL_RGBA, GL_UNSIGNED_BYTE, img);
}

/* Compare the image with @want where @mask is set; 0 if all match */
static int compare(const char *name, const uint8_t *want, const uint8_t *mask,
                   int tol)
{
    int bad = 0, first = -1;

    for (int i = 0; i < SIZE * SIZE; i++) {
        if (!mask[i]) {
            continue;
        }
        for (int c = 0; c < 4; c++) {
            if (abs(img[4 * i + c] - want[4 * i + c]) > tol) {
                bad++;
                if (first < 0) {
                    first = i;
                }
                break;
            }
        }
    }
    if (!bad) {
        tap_ok(name);
        return 0;
    }
    tap_fail(name, "%d pixels differ, first (%d, %d): got %02x%02x%02x%02x "
             "want %02x%02x%02x%02x", bad, first % SIZE, first / SIZE,
             img[4 * first], img[4 * first + 1], img[4 * first + 2],
             img[4 * first + 3], want[4 * first], want[4 * first + 1],
             want[4 * first + 2], want[4 * first + 3]);
    return 1;
}

static void fill(uint8_t *want, uint8_t *mask, const float c[4])
{
    for (int i = 0; i < SIZE * SIZE; i++) {
        for (int k = 0; k < 4; k++) {
            want[4 * i + k] = unorm8(c[k]);
        }
        mask[i] = 1;
    }
}

/* Draw triangles @t (@n vertices) over @clear; reference into want/mask */
static void reference_tris(const Vert *t, int n, const float clear[4],
                           bool smooth, uint8_t *want, uint8_t *mask)
{
    fill(want, mask, clear);
    for (int k = 0; k + 2 < n; k += 3) {
        for (int py = 0; py < SIZE; py++) {
            for (int px = 0; px < SIZE; px++) {
                int i = py * SIZE + px;
                float w[3];
                int c = classify(t + k, px, py, w);

                if (c == 0) {
                    mask[i] = 0;
                } else if (c > 0) {
                    for (int ch = 0; ch < 4; ch++) {
                        float f = smooth ?
                            w[0] * (&t[k].r)[ch] + w[1] * (&t[k + 1].r)[ch] +
                            w[2] * (&t[k + 2].r)[ch] : (&t[k].r)[ch];

                        want[4 * i + ch] = unorm8(f);
                    }
                }
            }
        }
    }
}

static void upload(GLuint vbo, const Vert *v, int n)
{
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glBufferData(GL_ARRAY_BUFFER, n * sizeof(*v), v, GL_STREAM_DRAW);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, sizeof(*v), NULL);
    glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, sizeof(*v),
                          (void *)(2 * sizeof(float)));
    glEnableVertexAttribArray(0);
    glEnableVertexAttribArray(1);
}

static void clear(const float c[4])
{
    glClearColor(c[0], c[1], c[2], c[3]);
    glClear(GL_COLOR_BUFFER_BIT);
}

static void print_ppm(void)
{
    printf("gles-draw: ppm begin\nP3 %d %d 255\n", SIZE, SIZE);
    /* GL's rows are bottom up; a PPM's top down */
    for (int y = SIZE - 1; y >= 0; y--) {
        for (int x = 0; x < SIZE; x++) {
            const uint8_t *p = &img[4 * (y * SIZE + x)];

            printf("%d %d %d%c", p[0], p[1], p[2], x == SIZE - 1 ? '\n' : ' ');
        }
    }
    printf("gles-draw: ppm end\n");
}

int main(int argc, char **argv)
{
    static const GLenum kinds[] = { GL_VERTEX_SHADER, GL_FRAGMENT_SHADER };
    static const char *const srcs[] = { vs_src, fs_src };
    static const char *const srcs_inst[] = { vs_inst_src, fs_src };
    static const char *const attrs[] = { "pos", "col", NULL };
    static const float grey[4] = { 0.25f, 0.25f, 0.25f, 1.0f };
    static const float blue[4] = { 0.0f, 0.2f, 0.8f, 1.0f };
    static const float red[4] = { 1.0f, 0.0f, 0.0f, 1.0f };
    static uint8_t want[SIZE * SIZE * 4], mask[SIZE * SIZE];
    EglCtx e;
    const char *err;
    GLuint tex, prog, vbo, ibo, vao, prog_inst;
    int ppm = argc > 1 && !strcmp(argv[1], "--ppm");

    setvbuf(stdout, NULL, _IOLBF, 0);
    err = egl_open(&e, false, 3, 0);
    if (err) {
        printf("gles-draw: FAIL: %s\n", err);
        return 2;
    }
    printf("gles-draw: %s\n", (const char *)glGetString(GL_RENDERER));
    if (!gl_texture_fbo(SIZE, SIZE, 0, &tex)) {
        printf("gles-draw: FAIL: set-up\n");
        return 2;
    }
    prog = gl_program("gles-draw", 2, kinds, srcs, attrs);
    if (!prog) {
        printf("gles-draw: FAIL: program link\n");
        return 2;
    }
    prog_inst = gl_program("gles-draw", 2, kinds, srcs_inst, attrs);
    glUseProgram(prog);
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glGenBuffers(1, &vbo);
    glGenBuffers(1, &ibo);
    glViewport(0, 0, SIZE, SIZE);

    /* clear/full */
    clear(blue);
    read_image();
    fill(want, mask, blue);
    compare("clear/full", want, mask, 1);

    /* clear/scissor: a 20x12 rectangle at (8, 40) */
    clear(blue);
    glEnable(GL_SCISSOR_TEST);
    glScissor(8, 40, 20, 12);
    clear(red);
    glDisable(GL_SCISSOR_TEST);
    read_image();
    fill(want, mask, blue);
    for (int y = 40; y < 52; y++) {
        for (int x = 8; x < 28; x++) {
            for (int c = 0; c < 4; c++) {
                want[4 * (y * SIZE + x) + c] = unorm8(red[c]);
            }
        }
    }
    compare("clear/scissor", want, mask, 1);

    /* draw/flat */
    {
        const Vert t[3] = {
            { -0.75f, -0.8f, 1, 0.5f, 0, 1 },
            { 0.9f, -0.5f, 1, 0.5f, 0, 1 },
            { -0.1f, 0.85f, 1, 0.5f, 0, 1 },
        };

        upload(vbo, t, 3);
        clear(grey);
        glDrawArrays(GL_TRIANGLES, 0, 3);
        read_image();
        reference_tris(t, 3, grey, false, want, mask);
        compare("draw/flat", want, mask, 1);
    }

    /* draw/interpolated */
    {
        const Vert t[3] = {
            { -0.9f, -0.9f, 1, 0, 0, 1 },
            { 0.9f, -0.7f, 0, 1, 0, 1 },
            { 0.1f, 0.9f, 0, 0, 1, 1 },
        };

        upload(vbo, t, 3);
        clear(grey);
        glDrawArrays(GL_TRIANGLES, 0, 3);
        read_image();
        reference_tris(t, 3, grey, true, want, mask);
        compare("draw/interpolated", want, mask, 2);
    }

    /* draw/indexed-strip: a quad from (-0.5, -0.25) to (0.625, 0.75) */
    {
        const Vert q[4] = {
            { -0.5f, -0.25f, 0, 1, 0.5f, 1 },
            { 0.625f, -0.25f, 0, 1, 0.5f, 1 },
            { -0.5f, 0.75f, 0, 1, 0.5f, 1 },
            { 0.625f, 0.75f, 0, 1, 0.5f, 1 },
        };
        const Vert tris[6] = { q[0], q[1], q[2], q[2], q[1], q[3] };
        static const GLushort idx[4] = { 0, 1, 2, 3 };

        upload(vbo, q, 4);
        glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ibo);
        glBufferData(GL_ELEMENT_ARRAY_BUFFER, sizeof(idx), idx,
                     GL_STATIC_DRAW);
        clear(grey);
        glDrawElements(GL_TRIANGLE_STRIP, 4, GL_UNSIGNED_SHORT, NULL);
        read_image();
        reference_tris(tris, 6, grey, false, want, mask);
        compare("draw/indexed-strip", want, mask, 1);
    }

    /* draw/cull-back: the left triangle is clockwise (a back face) */
    {
        const Vert t[6] = {
            { -0.9f, -0.5f, 1, 1, 0, 1 },
            { -0.5f, 0.5f, 1, 1, 0, 1 },
            { -0.1f, -0.5f, 1, 1, 0, 1 },
            { 0.1f, -0.5f, 0, 1, 1, 1 },
            { 0.9f, -0.5f, 0, 1, 1, 1 },
            { 0.5f, 0.5f, 0, 1, 1, 1 },
        };

        upload(vbo, t, 6);
        clear(grey);
        glEnable(GL_CULL_FACE);
        glCullFace(GL_BACK);
        glDrawArrays(GL_TRIANGLES, 0, 6);
        glDisable(GL_CULL_FACE);
        read_image();
        reference_tris(t + 3, 3, grey, false, want, mask);
        compare("draw/cull-back", want, mask, 1);
    }

    /* draw/fan: a pentagon around (0, 0.1) */
    {
        Vert v[7], tris[15];

        for (int i = 0; i < 6; i++) {
            float a = 2 * (float)M_PI * i / 5;

            v[i + 1] = (Vert) { 0.8f * cosf(a), 0.1f + 0.8f * sinf(a),
                                0.5f, 0, 1, 1 };
        }
        v[0] = (Vert) { 0, 0.1f, 0.5f, 0, 1, 1 };
        for (int i = 0; i < 5; i++) {
            tris[3 * i] = v[0];
            tris[3 * i + 1] = v[i + 1];
            tris[3 * i + 2] = v[i + 2];
        }
        upload(vbo, v, 7);
        clear(grey);
        glDrawArrays(GL_TRIANGLE_FAN, 0, 7);
        read_image();
        reference_tris(tris, 15, grey, false, want, mask);
        compare("draw/fan", want, mask, 1);
    }

    /* draw/restart-strip: quads at the left and the right, one strip */
    {
        const Vert q[8] = {
            { -0.875f, -0.5f, 1, 0, 1, 1 }, { -0.125f, -0.5f, 1, 0, 1, 1 },
            { -0.875f, 0.5f, 1, 0, 1, 1 }, { -0.125f, 0.5f, 1, 0, 1, 1 },
            { 0.125f, -0.25f, 1, 0, 1, 1 }, { 0.875f, -0.25f, 1, 0, 1, 1 },
            { 0.125f, 0.75f, 1, 0, 1, 1 }, { 0.875f, 0.75f, 1, 0, 1, 1 },
        };
        const Vert tris[12] = {
            q[0], q[1], q[2], q[2], q[1], q[3],
            q[4], q[5], q[6], q[6], q[5], q[7],
        };
        static const GLushort idx[9] = { 0, 1, 2, 3, 0xffff, 4, 5, 6, 7 };

        upload(vbo, q, 8);
        glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ibo);
        glBufferData(GL_ELEMENT_ARRAY_BUFFER, sizeof(idx), idx,
                     GL_STATIC_DRAW);
        glEnable(GL_PRIMITIVE_RESTART_FIXED_INDEX);
        clear(grey);
        glDrawElements(GL_TRIANGLE_STRIP, 9, GL_UNSIGNED_SHORT, NULL);
        glDisable(GL_PRIMITIVE_RESTART_FIXED_INDEX);
        read_image();
        reference_tris(tris, 12, grey, false, want, mask);
        compare("draw/restart-strip", want, mask, 1);
    }

    /* draw/instanced and draw/points: the second program */
    if (prog_inst) {
        const Vert t[3] = {
            { -0.9f, -0.6f, 0.5f, 0.5f, 1, 1 },
            { -0.2f, -0.6f, 0.5f, 0.5f, 1, 1 },
            { -0.6f, 0.7f, 0.5f, 0.5f, 1, 1 },
        };
        Vert tris[6];
        /* Points at pixel corners (8, 8), (20, 40), (52, 28) */
        const Vert pts[3] = {
            { 8.0f / 32 - 1, 8.0f / 32 - 1, 1, 1, 1, 1 },
            { 20.0f / 32 - 1, 40.0f / 32 - 1, 1, 1, 1, 1 },
            { 52.0f / 32 - 1, 28.0f / 32 - 1, 1, 1, 1, 1 },
        };
        static const float white[4] = { 1, 1, 1, 1 };

        glUseProgram(prog_inst);
        for (int i = 0; i < 3; i++) {
            tris[i] = t[i];
            tris[3 + i] = t[i];
            tris[3 + i].x += 1.0f;
        }
        upload(vbo, t, 3);
        clear(grey);
        glDrawArraysInstanced(GL_TRIANGLES, 0, 3, 2);
        read_image();
        reference_tris(tris, 6, grey, false, want, mask);
        compare("draw/instanced", want, mask, 1);

        upload(vbo, pts, 3);
        clear(grey);
        glDrawArrays(GL_POINTS, 0, 3);
        read_image();
        fill(want, mask, grey);
        for (int i = 0; i < 3; i++) {
            int cx = lrintf((pts[i].x + 1) * 32);
            int cy = lrintf((pts[i].y + 1) * 32);

            for (int y = cy - 2; y < cy + 2; y++) {
                for (int x = cx - 2; x < cx + 2; x++) {
                    for (int c = 0; c < 4; c++) {
                        want[4 * (y * SIZE + x) + c] = unorm8(white[c]);
                    }
                }
            }
        }
        compare("draw/points", want, mask, 1);
        glUseProgram(prog);
    } else {
        tap_fail("draw/instanced", "the instanced program did not build");
        tap_fail("draw/points", "the instanced program did not build");
    }

    if (glGetError() != GL_NO_ERROR) {
        printf("gles-draw: GL error\n");
    }
    if (ppm) {
        print_ppm();
    }
    egl_close(&e);
    printf("gles-draw: %d checks\n", tap_checks);
    return 0;
}
