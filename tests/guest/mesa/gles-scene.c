/*
 * gles-scene: a GLES 3 scene for the Mesa guest, checked pixel by pixel.
 *
 * EGL without a window: the surfaceless platform (the GPU's render node,
 * Mesa's asahi driver) or, with --software, EGL's software device
 * (llvmpipe).  One 256x256 RGBA8 framebuffer object with a depth buffer,
 * into which one frame draws:
 *
 *   - a clear of the whole target, then a scissored clear of a band;
 *   - a triangle with a colour per vertex (smooth interpolation);
 *   - two flat quads under the depth test, the nearer drawn first;
 *   - a quad textured with an 8x8 checkerboard (nearest filtering);
 *   - a white quad at alpha 128/255 blended over the background.
 *
 * Then checks of their own, each in a small framebuffer: a discarding
 * shader writes no depth, gl_FragDepth, glPolygonOffset, two-sided
 * stencil (check_zs).
 *
 * Each feature is one TAP line ("ok N name" / "not ok N name - why"),
 * judged against values computed here from the GLES 3 specification:
 * exact where the result is exact (clears, flat colours, nearest texels,
 * depth test), within 2/255 where it is interpolated or blended.
 * --ref FILE compares the whole image with another renderer's (llvmpipe)
 * and reports the pixels that differ by more than 3/255 (edges may
 * differ, interiors must not).  Then multisampling, in a 64x64 4x
 * renderbuffer resolved by glBlitFramebuffer: two triangles under a
 * per-sample depth test (msaa-*), one whose fragment shader keeps two
 * samples with gl_SampleMask (msaa-mask-*), one coloured per sample with
 * gl_SampleID (msaa-sample-id-*), one blended (msaa-blend-*), one
 * reading its coverage from gl_SampleMaskIn (msaa-sample-mask-in-*), judged
 * against the coverage of the sample positions GL reports (check_msaa);
 * alpha-to-coverage (msaa-alpha-to-coverage-*: no sample at alpha 0, all
 * at 1, monotonic in between) and a multisampled depth buffer resolved by
 * glBlitFramebuffer (msaa-depth-blit-*).  Then subpixel-snap: a mesh of
 * triangles whose vertices lie off the 1/256 pixel grid, each pixel hit
 * exactly once and by the triangle the snapped vertices give it.
 *
 * Then a second frame, "many-small-draws": 4096 small overlapping quads
 * in 512 draws, more geometry than the first tiled vertex buffer a
 * render queue gets holds, so that the GPU renders it in passes (partial
 * renders); checked exactly against the colours computed here.  With
 * --host-checks the host (boot-test.py) checks that the GPU's partial
 * render counter moved.
 *
 *   gles-scene [--software] [-o OUT.ppm] [--ref REF.ppm] [-n FRAMES]
 *              [--host-checks]
 *
 * -o writes the image as a binary PPM, top row first, as a person would
 * look at it; to a block device it writes the PPM at offset 0.
 * -n FRAMES draws the scene that many times and prints frames per second
 * (for make bench).  Exit status: 0 all checks passed, 1 some failed,
 * 2 no context or a GL error outside the checks.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "egl-util.h"
#include "tap.h"

#define SIZE        256
#define CHECKER     8

typedef struct Rgba {
    int c[4];
} Rgba;

static GLubyte image[SIZE][SIZE][4];    /* GL's rows: bottom first */

/* Colours as 8-bit values, so that GL's conversion to RGBA8 is exact */
static const Rgba background = { { 26, 38, 77, 255 } };
static const Rgba band = { { 230, 230, 230, 255 } };
static const Rgba near_red = { { 255, 0, 0, 255 } };
static const Rgba far_green = { { 0, 255, 0, 255 } };
static const Rgba checker_on = { { 255, 204, 0, 255 } };
static const Rgba checker_off = { { 0, 0, 51, 255 } };
#define BLEND_ALPHA 128

/* The band the scissored clear covers: rows 0..BAND_H-1 */
#define BAND_H      32
/* Smooth triangle, pixel coordinates (GL: origin bottom left) */
static const float tri_px[3][2] = { { 16, 48 }, { 144, 48 }, { 80, 176 } };
/* Depth quads: x0, y0, x1, y1 */
static const int near_quad[4] = { 160, 48, 224, 112 };
static const int far_quad[4] = { 176, 64, 240, 128 };
/* Textured quad: 10 pixels per texel */
static const int tex_quad[4] = { 160, 160, 240, 240 };
/* Blended quad */
static const int blend_quad[4] = { 16, 192, 80, 240 };

static const char *const color_vs =
    "#version 300 es\n"
    "layout(location = 0) in vec3 pos;\n"
    "layout(location = 1) in vec4 color;\n"
    "out vec4 v_color;\n"
    "void main() { v_color = color; gl_Position = vec4(pos, 1.0); }\n";
static const char *const color_fs =
    "#version 300 es\n"
    "precision highp float;\n"
    "in vec4 v_color;\n"
    "out vec4 frag;\n"
    "void main() { frag = v_color; }\n";
static const char *const tex_vs =
    "#version 300 es\n"
    "layout(location = 0) in vec3 pos;\n"
    "layout(location = 2) in vec2 uv;\n"
    "out vec2 v_uv;\n"
    "void main() { v_uv = uv; gl_Position = vec4(pos, 1.0); }\n";
static const char *const tex_fs =
    "#version 300 es\n"
    "precision highp float;\n"
    "uniform sampler2D tex;\n"
    "in vec2 v_uv;\n"
    "out vec4 frag;\n"
    "void main() { frag = texture(tex, v_uv); }\n";

static int die(const char *what)
{
    printf("gles-scene: error: %s (EGL 0x%x, GL 0x%x)\n", what,
           eglGetError(), glGetError());
    return 2;
}

static float ndc(float px)
{
    return px / (SIZE / 2) - 1.0f;
}

static GLuint program(const char *vs_src, const char *fs_src)
{
    static const GLenum kind[2] = { GL_VERTEX_SHADER, GL_FRAGMENT_SHADER };
    const char *const src[2] = { vs_src, fs_src };

    return gl_program("gles-scene", 2, kind, src, NULL);
}

/* --- the scene ------------------------------------------------------------ */

typedef struct Scene {
    GLuint color_prog, tex_prog, tex, vbo, vao;
} Scene;

/* Vertex layout: x y z, r g b a, u v */
#define VTX_FLOATS  9

static void put_vertex(GLfloat *v, float x, float y, float z,
                       const Rgba *c, float u, float t)
{
    v[0] = ndc(x);
    v[1] = ndc(y);
    v[2] = z;
    for (int i = 0; i < 4; i++) {
        v[3 + i] = c ? c->c[i] / 255.0f : 0.0f;
    }
    v[7] = u;
    v[8] = t;
}

/* Two triangles covering pixel rectangle @r (x0 y0 x1 y1) */
static void put_quad(GLfloat *v, const int *r, float z, const Rgba *c)
{
    static const int corner[6][2] = {
        { 0, 0 }, { 1, 0 }, { 1, 1 }, { 0, 0 }, { 1, 1 }, { 0, 1 }
    };

    for (int i = 0; i < 6; i++) {
        put_vertex(v + i * VTX_FLOATS, r[corner[i][0] * 2],
                   r[1 + corner[i][1] * 2], z, c, corner[i][0],
                   corner[i][1]);
    }
}

enum {
    FIRST_TRI = 0,
    FIRST_NEAR = 3,
    FIRST_FAR = 9,
    FIRST_TEX = 15,
    FIRST_BLEND = 21,
    NUM_VERTICES = 27,
};

static int scene_init(Scene *s)
{
    static const Rgba vertex_colour[3] = {
        { { 255, 0, 0, 255 } }, { { 0, 255, 0, 255 } }, { { 0, 0, 255, 255 } }
    };
    static GLfloat v[NUM_VERTICES * VTX_FLOATS];
    Rgba white = { { 255, 255, 255, BLEND_ALPHA } };
    GLubyte texels[CHECKER][CHECKER][4];
    GLuint target;

    if (!gl_texture_fbo(SIZE, SIZE, GL_DEPTH_COMPONENT24, &target)) {
        return 0;
    }
    s->color_prog = program(color_vs, color_fs);
    s->tex_prog = program(tex_vs, tex_fs);
    if (!s->color_prog || !s->tex_prog) {
        return 0;
    }

    for (int y = 0; y < CHECKER; y++) {
        for (int x = 0; x < CHECKER; x++) {
            const Rgba *c = (x + y) & 1 ? &checker_off : &checker_on;

            for (int i = 0; i < 4; i++) {
                texels[y][x][i] = c->c[i];
            }
        }
    }
    glGenTextures(1, &s->tex);
    glBindTexture(GL_TEXTURE_2D, s->tex);
    glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, CHECKER, CHECKER);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, CHECKER, CHECKER, GL_RGBA,
                    GL_UNSIGNED_BYTE, texels);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);

    for (int i = 0; i < 3; i++) {
        put_vertex(v + (FIRST_TRI + i) * VTX_FLOATS, tri_px[i][0],
                   tri_px[i][1], 0.0f, &vertex_colour[i], 0, 0);
    }
    put_quad(v + FIRST_NEAR * VTX_FLOATS, near_quad, -0.5f, &near_red);
    put_quad(v + FIRST_FAR * VTX_FLOATS, far_quad, 0.5f, &far_green);
    put_quad(v + FIRST_TEX * VTX_FLOATS, tex_quad, 0.0f, NULL);
    put_quad(v + FIRST_BLEND * VTX_FLOATS, blend_quad, 0.0f, &white);

    glGenVertexArrays(1, &s->vao);
    glBindVertexArray(s->vao);
    glGenBuffers(1, &s->vbo);
    glBindBuffer(GL_ARRAY_BUFFER, s->vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof(v), v, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, VTX_FLOATS * 4, NULL);
    glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, VTX_FLOATS * 4,
                          (void *)(3 * 4));
    glVertexAttribPointer(2, 2, GL_FLOAT, GL_FALSE, VTX_FLOATS * 4,
                          (void *)(7 * 4));
    for (int i = 0; i < 3; i++) {
        glEnableVertexAttribArray(i);
    }
    glViewport(0, 0, SIZE, SIZE);
    return glGetError() == GL_NO_ERROR;
}

static void scene_draw(const Scene *s)
{
    glDisable(GL_SCISSOR_TEST);
    glDisable(GL_BLEND);
    glDisable(GL_DEPTH_TEST);
    glClearColor(background.c[0] / 255.0f, background.c[1] / 255.0f,
                 background.c[2] / 255.0f, 1.0f);
    glClearDepthf(1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glEnable(GL_SCISSOR_TEST);
    glScissor(0, 0, SIZE, BAND_H);
    glClearColor(band.c[0] / 255.0f, band.c[1] / 255.0f, band.c[2] / 255.0f,
                 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    glDisable(GL_SCISSOR_TEST);

    glUseProgram(s->color_prog);
    glDrawArrays(GL_TRIANGLES, FIRST_TRI, 3);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDrawArrays(GL_TRIANGLES, FIRST_NEAR, 6);
    glDrawArrays(GL_TRIANGLES, FIRST_FAR, 6);
    glDisable(GL_DEPTH_TEST);

    glUseProgram(s->tex_prog);
    glBindTexture(GL_TEXTURE_2D, s->tex);
    glDrawArrays(GL_TRIANGLES, FIRST_TEX, 6);

    glUseProgram(s->color_prog);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glDrawArrays(GL_TRIANGLES, FIRST_BLEND, 6);
    glDisable(GL_BLEND);
}

/* --- the checks --------------------------------------------------------- */

/* Pixel (x, y) (GL: row 0 at the bottom) against @want, within @tol */
static int pixel_is(int x, int y, const Rgba *want, int tol, char *why,
                    size_t len)
{
    for (int i = 0; i < 4; i++) {
        if (abs(image[y][x][i] - want->c[i]) > tol) {
            snprintf(why, len, "pixel (%d,%d) is %02x%02x%02x%02x, "
                     "expected %02x%02x%02x%02x (+-%d)", x, y,
                     image[y][x][0], image[y][x][1], image[y][x][2],
                     image[y][x][3], want->c[0], want->c[1], want->c[2],
                     want->c[3], tol);
            return 0;
        }
    }
    return 1;
}

/* Pixels checked per feature: (x, y, colour) with a tolerance */
typedef struct Probe {
    int x, y;
    const Rgba *want;
} Probe;

static void check_probes(const char *name, const Probe *p, int n, int tol)
{
    char why[160] = "";
    int ok = 1;

    for (int i = 0; i < n && ok; i++) {
        ok = pixel_is(p[i].x, p[i].y, p[i].want, tol, why, sizeof(why));
    }
    tap_report(name, ok, why);
}

/* The smooth triangle's colour at a pixel centre: barycentric weights */
static Rgba smooth_at(float x, float y)
{
    const float (*t)[2] = tri_px;
    float area = (t[1][0] - t[0][0]) * (t[2][1] - t[0][1]) -
                 (t[2][0] - t[0][0]) * (t[1][1] - t[0][1]);
    float w1 = ((x - t[0][0]) * (t[2][1] - t[0][1]) -
                (t[2][0] - t[0][0]) * (y - t[0][1])) / area;
    float w2 = ((t[1][0] - t[0][0]) * (y - t[0][1]) -
                (x - t[0][0]) * (t[1][1] - t[0][1])) / area;
    float w0 = 1.0f - w1 - w2;
    Rgba c = { { (int)(w0 * 255 + 0.5f), (int)(w1 * 255 + 0.5f),
                 (int)(w2 * 255 + 0.5f), 255 } };

    return c;
}

static void check_scene(void)
{
    Rgba smooth[3], blended = background;
    Probe clear[] = {
        { 0, BAND_H, &background }, { SIZE - 1, SIZE - 1, &background },
        { 128, 150, &background },
    };
    Probe scissor[] = {
        { 0, 0, &band }, { SIZE - 1, BAND_H - 1, &band },
        { 8, BAND_H, &background },
    };
    Probe depth[] = {
        { 170, 56, &near_red }, { 200, 90, &near_red },
        { 220, 108, &near_red }, { 232, 120, &far_green },
        { 180, 120, &far_green },
    };
    Probe tex[CHECKER * 2];
    Probe smooth_p[3];
    Probe blend[] = { { 20, 196, &blended }, { 78, 238, &blended } };
    static const int at[3][2] = { { 80, 90 }, { 40, 60 }, { 110, 70 } };

    check_probes("clear", clear, 3, 0);
    check_probes("scissored-clear", scissor, 3, 0);
    for (int i = 0; i < 3; i++) {
        smooth[i] = smooth_at(at[i][0] + 0.5f, at[i][1] + 0.5f);
        smooth_p[i] = (Probe){ at[i][0], at[i][1], &smooth[i] };
    }
    check_probes("smooth-triangle", smooth_p, 3, 2);
    check_probes("depth-test", depth, 5, 0);
    for (int i = 0; i < CHECKER * 2; i++) {
        int tx = i % CHECKER, ty = (i * 3) % CHECKER;

        tex[i] = (Probe){ tex_quad[0] + tx * 10 + 5, tex_quad[1] + ty * 10 + 5,
                          (tx + ty) & 1 ? &checker_off : &checker_on };
    }
    check_probes("texture-nearest", tex, CHECKER * 2, 0);
    /* src * a + dst * (1 - a); alpha: 128/255 * a + 1 * (1 - a) */
    for (int i = 0; i < 4; i++) {
        float a = BLEND_ALPHA / 255.0f;
        float src = i < 3 ? 1.0f : a;

        blended.c[i] = (int)((src * a + background.c[i] / 255.0f * (1 - a)) *
                             255 + 0.5f);
    }
    check_probes("blend", blend, 2, 2);
}

/* --- many small draws --------------------------------------------------- */

/*
 * A grid of GRID_N x GRID_N cells of GRID_CELL pixels; quad i (raster
 * order, drawn in that order) covers cell i and GRID_OVER pixels of the
 * cells to its left and below, so where quads overlap the later one
 * (right, above) shows.  Colours from a hash, 8-bit values.
 */
#define GRID_CELL   4
#define GRID_OVER   2
#define GRID_N      (SIZE / GRID_CELL)
#define GRID_QUADS  (GRID_N * GRID_N)
#define GRID_DRAW   8                   /* quads per draw */
#define GPU_PATH    "/machine/gpu-asc"
#define HOST_PAUSE_US (300 * 1000)

static Rgba grid_colour(int i)
{
    uint32_t h = hash32(0x9e3779b9u + i);
    Rgba c = { { h & 0xff, (h >> 8) & 0xff, (h >> 16) & 0xff, 255 } };

    return c;
}

/* The quad that shows at pixel (x, y): its own cell's, or the next one's */
static int grid_quad_at(int x, int y)
{
    int cx = x / GRID_CELL, cy = y / GRID_CELL;

    if (x % GRID_CELL >= GRID_CELL - GRID_OVER && cx + 1 < GRID_N) {
        cx++;
    }
    if (y % GRID_CELL >= GRID_CELL - GRID_OVER && cy + 1 < GRID_N) {
        cy++;
    }
    return cy * GRID_N + cx;
}

static void host_request(bool host, const char *req)
{
    if (host) {
        printf("AGX-TEST: host: %s\n", req);
        usleep(HOST_PAUSE_US);
    }
}

static void check_many_draws(const Scene *s, bool host)
{
    static GLfloat v[GRID_QUADS * 6 * VTX_FLOATS];
    char why[160] = "";
    GLuint vao, vbo, tex, fbo;
    int ok = 1;

    /* A framebuffer of its own, as the scene's: SIZE square, RGBA8 */
    fbo = gl_texture_fbo(SIZE, SIZE, 0, &tex);
    if (!fbo) {
        tap_report("many-small-draws", 0, "no framebuffer");
        return;
    }
    glViewport(0, 0, SIZE, SIZE);

    for (int i = 0; i < GRID_QUADS; i++) {
        int cx = i % GRID_N, cy = i / GRID_N;
        int r[4] = { cx * GRID_CELL - GRID_OVER, cy * GRID_CELL - GRID_OVER,
                     (cx + 1) * GRID_CELL, (cy + 1) * GRID_CELL };
        Rgba c = grid_colour(i);

        put_quad(v + i * 6 * VTX_FLOATS, r, 0.0f, &c);
    }
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glGenBuffers(1, &vbo);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof(v), v, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, VTX_FLOATS * 4, NULL);
    glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, VTX_FLOATS * 4,
                          (void *)(3 * 4));
    glEnableVertexAttribArray(0);
    glEnableVertexAttribArray(1);

    host_request(host, "qom-save " GPU_PATH " vdm-partials partials");
    glDisable(GL_SCISSOR_TEST);
    glDisable(GL_BLEND);
    glDisable(GL_DEPTH_TEST);
    glClearColor(0.0f, 0.0f, 0.0f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glUseProgram(s->color_prog);
    for (int i = 0; i < GRID_QUADS; i += GRID_DRAW) {
        glDrawArrays(GL_TRIANGLES, i * 6, GRID_DRAW * 6);
    }
    glReadPixels(0, 0, SIZE, SIZE, GL_RGBA, GL_UNSIGNED_BYTE, image);
    if (glGetError() != GL_NO_ERROR) {
        tap_report("many-small-draws", 0, "a GL call failed");
        ok = 0;
    }
    for (int y = 0; y < SIZE && ok; y++) {
        for (int x = 0; x < SIZE && ok; x++) {
            Rgba c = grid_colour(grid_quad_at(x, y));

            ok = pixel_is(x, y, &c, 0, why, sizeof(why));
        }
    }
    if (ok || why[0]) {
        tap_report("many-small-draws", ok, why);
    }
    /* On the GPU the scene outgrew its first buffer: partial renders */
    host_request(host, "qom-delta-min " GPU_PATH " vdm-partials partials 1");
    glBindVertexArray(s->vao);
    glDeleteBuffers(1, &vbo);
    glDeleteVertexArrays(1, &vao);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glDeleteFramebuffers(1, &fbo);
    glDeleteTextures(1, &tex);
}

/* --- depth and stencil after the shader, polygon offset ---------------- */

/*
 * Each of these checks draws into a framebuffer of its own (ZS_SIZE
 * square, RGBA8 and 24-bit depth with 8-bit stencil cleared to 1.0 and
 * 0, depth test Less) with flat colours, and reads every pixel back:
 * exact.
 */
#define ZS_SIZE     64

static const Rgba zs_red = { { 255, 0, 0, 255 } };
static const Rgba zs_green = { { 0, 255, 0, 255 } };
static const Rgba zs_blue = { { 0, 0, 255, 255 } };

static const char *const zs_vs =
    "#version 300 es\n"
    "layout(location = 0) in vec3 pos;\n"
    "void main() { gl_Position = vec4(pos, 1.0); }\n";
static const char *const zs_flat_fs =
    "#version 300 es\n"
    "precision highp float;\n"
    "uniform vec4 colour;\n"
    "out vec4 frag;\n"
    "void main() { frag = colour; }\n";
/* discards the left half of the target */
static const char *const zs_discard_fs =
    "#version 300 es\n"
    "precision highp float;\n"
    "uniform vec4 colour;\n"
    "out vec4 frag;\n"
    "void main() {\n"
    "    if (gl_FragCoord.x < 32.0) discard;\n"
    "    frag = colour;\n"
    "}\n";
/* depth = x / 64 at the pixel centre */
static const char *const zs_depth_fs =
    "#version 300 es\n"
    "precision highp float;\n"
    "uniform vec4 colour;\n"
    "out vec4 frag;\n"
    "void main() {\n"
    "    gl_FragDepth = gl_FragCoord.x / 64.0;\n"
    "    frag = colour;\n"
    "}\n";

typedef struct ZsTarget {
    GLuint fbo, colour, depth, vao, vbo;
    GLubyte px[ZS_SIZE][ZS_SIZE][4];    /* rows bottom first */
} ZsTarget;

static int zs_begin(ZsTarget *t)
{
    memset(t, 0, sizeof(*t));
    glGenRenderbuffers(1, &t->colour);
    glBindRenderbuffer(GL_RENDERBUFFER, t->colour);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, ZS_SIZE, ZS_SIZE);
    glGenRenderbuffers(1, &t->depth);
    glBindRenderbuffer(GL_RENDERBUFFER, t->depth);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH24_STENCIL8, ZS_SIZE,
                          ZS_SIZE);
    glGenFramebuffers(1, &t->fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, t->fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
                              GL_RENDERBUFFER, t->colour);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_STENCIL_ATTACHMENT,
                              GL_RENDERBUFFER, t->depth);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
        return 0;
    }
    glGenVertexArrays(1, &t->vao);
    glBindVertexArray(t->vao);
    glGenBuffers(1, &t->vbo);
    glBindBuffer(GL_ARRAY_BUFFER, t->vbo);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 12, NULL);
    glEnableVertexAttribArray(0);
    glViewport(0, 0, ZS_SIZE, ZS_SIZE);
    glDisable(GL_SCISSOR_TEST);
    glDisable(GL_BLEND);
    glClearColor(0, 0, 0, 1);
    glClearDepthf(1.0f);
    glClearStencil(0);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT | GL_STENCIL_BUFFER_BIT);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDepthMask(GL_TRUE);
    return glGetError() == GL_NO_ERROR;
}

/*
 * Draw rows [y0, y1) of the target (pixels) with @prog in colour @c, at
 * window depth z0 at x = 0 growing to z1 at x = ZS_SIZE
 */
static void zs_rect(ZsTarget *t, GLuint prog, const Rgba *c, int y0, int y1,
                    float z0, float z1)
{
    float ya = 2.0f * y0 / ZS_SIZE - 1, yb = 2.0f * y1 / ZS_SIZE - 1;
    float za = 2 * z0 - 1, zb = 2 * z1 - 1;
    const GLfloat v[6][3] = {
        { -1, ya, za }, { 1, ya, zb }, { 1, yb, zb },
        { -1, ya, za }, { 1, yb, zb }, { -1, yb, za },
    };

    glUseProgram(prog);
    glUniform4f(glGetUniformLocation(prog, "colour"), c->c[0] / 255.0f,
                c->c[1] / 255.0f, c->c[2] / 255.0f, c->c[3] / 255.0f);
    glBufferData(GL_ARRAY_BUFFER, sizeof(v), v, GL_STREAM_DRAW);
    glDrawArrays(GL_TRIANGLES, 0, 6);
}

/*
 * Columns [x0, x1) of the target, at depth 0.5, facing front
 * (counter-clockwise) or back
 */
static void zs_cols(ZsTarget *t, GLuint prog, const Rgba *c, int x0, int x1,
                    bool back)
{
    float xa = 2.0f * x0 / ZS_SIZE - 1, xb = 2.0f * x1 / ZS_SIZE - 1;
    GLfloat v[6][3] = {
        { xa, -1, 0 }, { xb, -1, 0 }, { xb, 1, 0 },
        { xa, -1, 0 }, { xb, 1, 0 }, { xa, 1, 0 },
    };

    if (back) {
        for (int i = 0; i < 3; i++) {
            GLfloat tmp[3];

            memcpy(tmp, v[i], sizeof(tmp));
            memcpy(v[i], v[5 - i], sizeof(tmp));
            memcpy(v[5 - i], tmp, sizeof(tmp));
        }
    }
    glUseProgram(prog);
    glUniform4f(glGetUniformLocation(prog, "colour"), c->c[0] / 255.0f,
                c->c[1] / 255.0f, c->c[2] / 255.0f, c->c[3] / 255.0f);
    glBufferData(GL_ARRAY_BUFFER, sizeof(v), v, GL_STREAM_DRAW);
    glDrawArrays(GL_TRIANGLES, 0, 6);
}

/* Read the target back; compare each pixel with @want(x, y) */
static void zs_end(ZsTarget *t, const char *name,
                   const Rgba *(*want)(int x, int y))
{
    char why[160] = "";
    int ok = glGetError() == GL_NO_ERROR;

    if (!ok) {
        snprintf(why, sizeof(why), "GL error 0x%x", glGetError());
    }
    glReadPixels(0, 0, ZS_SIZE, ZS_SIZE, GL_RGBA, GL_UNSIGNED_BYTE, t->px);
    for (int y = 0; y < ZS_SIZE && ok; y++) {
        for (int x = 0; x < ZS_SIZE && ok; x++) {
            const Rgba *w = want(x, y);

            for (int i = 0; i < 4 && ok; i++) {
                if (t->px[y][x][i] != w->c[i]) {
                    snprintf(why, sizeof(why), "pixel (%d,%d) is "
                             "%02x%02x%02x%02x, expected %02x%02x%02x%02x",
                             x, y, t->px[y][x][0], t->px[y][x][1],
                             t->px[y][x][2], t->px[y][x][3], w->c[0],
                             w->c[1], w->c[2], w->c[3]);
                    ok = 0;
                }
            }
        }
    }
    tap_report(name, ok, why);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_STENCIL_TEST);
    glDisable(GL_POLYGON_OFFSET_FILL);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glDeleteFramebuffers(1, &t->fbo);
    glDeleteRenderbuffers(1, &t->colour);
    glDeleteRenderbuffers(1, &t->depth);
    glDeleteBuffers(1, &t->vbo);
    glDeleteVertexArrays(1, &t->vao);
}

static const Rgba *want_left_green(int x, int y)
{
    return x < 32 ? &zs_green : &zs_red;
}

static const Rgba *want_left_red(int x, int y)
{
    return x < 32 ? &zs_red : &zs_green;
}

/*
 * A discarded fragment writes no depth: red at depth 0.25 from a shader
 * that discards the left half, then green at 0.5 everywhere: green on the
 * left (nothing was written there), red on the right
 */
static void check_discard_keeps_depth(void)
{
    GLuint discard = program(zs_vs, zs_discard_fs);
    GLuint flat = program(zs_vs, zs_flat_fs);
    ZsTarget t;

    if (!discard || !flat || !zs_begin(&t)) {
        tap_report("discard-keeps-depth", 0, "set-up failed");
        return;
    }
    zs_rect(&t, discard, &zs_red, 0, ZS_SIZE, 0.25f, 0.25f);
    zs_rect(&t, flat, &zs_green, 0, ZS_SIZE, 0.5f, 0.5f);
    zs_end(&t, "discard-keeps-depth", want_left_green);
}

/*
 * gl_FragDepth: red at interpolated depth 0.75 whose shader writes depth
 * (x + 0.5) / 64, then green at 0.5: it passes only where the written
 * depth is beyond 0.5, the right half
 */
static void check_frag_depth(void)
{
    GLuint depth = program(zs_vs, zs_depth_fs);
    GLuint flat = program(zs_vs, zs_flat_fs);
    ZsTarget t;

    if (!depth || !flat || !zs_begin(&t)) {
        tap_report("frag-depth", 0, "set-up failed");
        return;
    }
    zs_rect(&t, depth, &zs_red, 0, ZS_SIZE, 0.75f, 0.75f);
    zs_rect(&t, flat, &zs_green, 0, ZS_SIZE, 0.5f, 0.5f);
    zs_end(&t, "frag-depth", want_left_red);
}

static const Rgba *want_offset(int x, int y)
{
    return &zs_green;
}

/*
 * glPolygonOffset.  Rows 0-31: a red plane sloping from depth 0.25 to
 * 0.75 across the target (1/128 a pixel), then green 1/256 behind it with
 * factor -1 (offset -1/128: in front, drawn), then blue 1/64 behind it
 * with the same offset (still behind the green one: not drawn).  Rows
 * 32-63: red at 0.5, then green at 0.5 with units -2 (in front by two
 * resolvable steps), then blue at 0.5 with units +2 (behind): green.
 */
static void check_polygon_offset(void)
{
    GLuint flat = program(zs_vs, zs_flat_fs);
    ZsTarget t;

    if (!flat || !zs_begin(&t)) {
        tap_report("polygon-offset", 0, "set-up failed");
        return;
    }
    zs_rect(&t, flat, &zs_red, 0, 32, 0.25f, 0.75f);
    glEnable(GL_POLYGON_OFFSET_FILL);
    glPolygonOffset(-1.0f, 0.0f);
    zs_rect(&t, flat, &zs_green, 0, 32, 0.25f + 1.0f / 256,
            0.75f + 1.0f / 256);
    zs_rect(&t, flat, &zs_blue, 0, 32, 0.25f + 1.0f / 64, 0.75f + 1.0f / 64);
    glDisable(GL_POLYGON_OFFSET_FILL);
    zs_rect(&t, flat, &zs_red, 32, 64, 0.5f, 0.5f);
    glEnable(GL_POLYGON_OFFSET_FILL);
    glPolygonOffset(0.0f, -2.0f);
    zs_rect(&t, flat, &zs_green, 32, 64, 0.5f, 0.5f);
    glPolygonOffset(0.0f, 2.0f);
    zs_rect(&t, flat, &zs_blue, 32, 64, 0.5f, 0.5f);
    zs_end(&t, "polygon-offset", want_offset);
}

static const Rgba *want_stencil(int x, int y)
{
    return x < 32 ? &zs_green : &zs_blue;
}

/*
 * Two-sided stencil (glStencilFuncSeparate): the left half drawn facing
 * front and the right half facing back, Always and Replace with the
 * reference 3 for front faces and 9 for back ones; then front-facing
 * green where Equal 3 and blue where Equal 9: green left, blue right
 */
static void check_stencil_separate(void)
{
    GLuint flat = program(zs_vs, zs_flat_fs);
    ZsTarget t;

    if (!flat || !zs_begin(&t)) {
        tap_report("stencil-separate", 0, "set-up failed");
        return;
    }
    glDisable(GL_DEPTH_TEST);
    glEnable(GL_STENCIL_TEST);
    glStencilMask(0xff);
    glStencilOp(GL_KEEP, GL_KEEP, GL_REPLACE);
    glStencilFuncSeparate(GL_FRONT, GL_ALWAYS, 3, 0xff);
    glStencilFuncSeparate(GL_BACK, GL_ALWAYS, 9, 0xff);
    zs_cols(&t, flat, &zs_red, 0, 32, false);
    zs_cols(&t, flat, &zs_red, 32, 64, true);
    glStencilOp(GL_KEEP, GL_KEEP, GL_KEEP);
    glStencilFunc(GL_EQUAL, 3, 0xff);
    zs_cols(&t, flat, &zs_green, 0, 64, false);
    glStencilFunc(GL_EQUAL, 9, 0xff);
    zs_cols(&t, flat, &zs_blue, 0, 64, false);
    zs_end(&t, "stencil-separate", want_stencil);
}

static void check_zs(void)
{
    check_discard_keeps_depth();
    check_frag_depth();
    check_polygon_offset();
    check_stencil_separate();
}

/* --- the subpixel grid ---------------------------------------------------- */

/*
 * subpixel-snap: tap.c's mesh of 98 triangles whose inner vertices lie a
 * fraction of a 1/256 step off the grid near pixel centres, drawn in one
 * draw with additive blending (red: hits) and the triangle's index in
 * alpha, into a 64x64 RGBA8 target; judged by snap_judge() against the
 * vertices snapped to 1/256 pixel (GL_SUBPIXEL_BITS is a lower bound: the
 * Gallium driver reports 4, Honeykrisp 8 for the same hardware, llvmpipe
 * rasterizes with 8)
 */
static const char *const snap_vs =
    "#version 300 es\n"
    "layout(location = 0) in vec2 pos;\n"
    "layout(location = 1) in vec4 colour;\n"
    "flat out vec4 v_colour;\n"
    "void main() { v_colour = colour; gl_Position = vec4(pos, 0, 1); }\n";
static const char *const snap_fs =
    "#version 300 es\n"
    "precision highp float;\n"
    "flat in vec4 v_colour;\n"
    "out vec4 frag;\n"
    "void main() { frag = v_colour; }\n";

static void check_subpixel_snap(void)
{
    static int32_t mesh[SNAP_TRIS][3][2];
    static GLfloat v[SNAP_TRIS * 3][6];
    static GLubyte px[SNAP_SIZE][SNAP_SIZE][4];
    GLuint prog = program(snap_vs, snap_fs), rb, fbo, vao, vbo;
    char why[200] = "no program";
    bool ok = prog != 0;

    snap_mesh(mesh);
    for (int t = 0; t < SNAP_TRIS; t++) {
        for (int k = 0; k < 3; k++) {
            GLfloat *o = v[3 * t + k];

            /* window = 32 * ndc + 32: exact for these */
            o[0] = mesh[t][k][0] / (float)(SNAP_UNIT * SNAP_SIZE / 2) - 1;
            o[1] = mesh[t][k][1] / (float)(SNAP_UNIT * SNAP_SIZE / 2) - 1;
            o[2] = 1 / 255.0f;
            o[3] = 0;
            o[4] = 0;
            o[5] = (t + 1) / 255.0f;
        }
    }
    glGenRenderbuffers(1, &rb);
    glBindRenderbuffer(GL_RENDERBUFFER, rb);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, SNAP_SIZE, SNAP_SIZE);
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
                              GL_RENDERBUFFER, rb);
    glViewport(0, 0, SNAP_SIZE, SNAP_SIZE);
    glDisable(GL_SCISSOR_TEST);
    glDisable(GL_DEPTH_TEST);
    glClearColor(0, 0, 0, 0);
    glClear(GL_COLOR_BUFFER_BIT);
    glEnable(GL_BLEND);
    glBlendEquation(GL_FUNC_ADD);
    glBlendFuncSeparate(GL_ONE, GL_ONE, GL_ONE, GL_ZERO);
    glUseProgram(prog);
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glGenBuffers(1, &vbo);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof(v), v, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, sizeof(v[0]), NULL);
    glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, sizeof(v[0]),
                          (void *)(2 * sizeof(GLfloat)));
    glEnableVertexAttribArray(0);
    glEnableVertexAttribArray(1);
    glDrawArrays(GL_TRIANGLES, 0, SNAP_TRIS * 3);
    glDisable(GL_BLEND);
    glReadPixels(0, 0, SNAP_SIZE, SNAP_SIZE, GL_RGBA, GL_UNSIGNED_BYTE, px);
    if (ok && glGetError() != GL_NO_ERROR) {
        snprintf(why, sizeof(why), "a GL call failed");
        ok = false;
    }
    ok = ok && snap_judge("gles-scene", (const uint8_t (*)[SNAP_SIZE][4])px,
                          why, sizeof(why));
    tap_report("subpixel-snap", ok, why);
    glBindVertexArray(0);
    glDeleteVertexArrays(1, &vao);
    glDeleteBuffers(1, &vbo);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glDeleteFramebuffers(1, &fbo);
    glDeleteRenderbuffers(1, &rb);
}

/* --- multisampling ------------------------------------------------------ */

/*
 * A 4x multisampled renderbuffer (colour and depth), resolved by
 * glBlitFramebuffer into a single-sampled one and read back.  The CPU
 * reference takes the sample positions GL reports (glGetMultisamplefv) and
 * decides, for each sample, which primitive covers it and wins the depth
 * test; a resolved pixel is the mean of its samples.  Pixels whose samples
 * all agree must be exact; the others (edges) within 1/255 of the mean
 * (the resolve's rounding); samples closer than 1/100 pixel to an edge
 * (where the fill rule decides, and where GPUs snap vertices to their
 * subpixel grid) leave their pixel unchecked.
 */
#define MS_SIZE     64
#define MS_SAMPLES  4
/* The samples ms_draw asks for, and those the target it made has */
static int ms_want = MS_SAMPLES, ms_n = MS_SAMPLES;

typedef struct MsTri {
    float v[3][2];              /* window pixels, GL's origin bottom left */
    float z;
    const Rgba *c;              /* its vertices' colour */
    const Rgba *want;           /* a covered sample's colour, if not c */
    const Rgba *per_sample;     /* ... or sample s's: per_sample[s] */
    /* ... or by_count[k], k the samples of the pixel it covers */
    const Rgba *by_count;
} MsTri;

static GLubyte ms_image[MS_SIZE][MS_SIZE][4];

static const char *const ms_vs =
    "#version 320 es\n"
    "layout(location = 0) in vec3 pos;\n"
    "layout(location = 1) in vec4 color;\n"
    "out vec4 v_color;\n"
    "void main() { v_color = color; gl_Position = vec4(pos, 1.0); }\n";
static const char *const ms_fs =
    "#version 320 es\n"
    "precision highp float;\n"
    "in vec4 v_color;\n"
    "out vec4 frag;\n"
    "void main() { frag = v_color; }\n";
/* ... keeping samples 0 and 3 only */
static const char *const ms_mask_fs =
    "#version 320 es\n"
    "precision highp float;\n"
    "in vec4 v_color;\n"
    "out vec4 frag;\n"
    "void main() { frag = v_color; gl_SampleMask[0] = 0x9; }\n";
/* ... a colour per sample (sample shading: the shader runs per sample) */
static const char *const ms_id_fs =
    "#version 320 es\n"
    "precision highp float;\n"
    "in vec4 v_color;\n"
    "out vec4 frag;\n"
    "const vec4 k[4] = vec4[4](vec4(1, 0, 0, 1), vec4(0, 1, 0, 1),\n"
    "                          vec4(0, 0, 1, 1), vec4(1, 1, 1, 1));\n"
    "void main() { frag = k[gl_SampleID & 3]; }\n";
/* ... red as the share of the pixel's samples covered (gl_SampleMaskIn) */
static const char *const ms_in_fs =
    "#version 320 es\n"
    "precision highp float;\n"
    "in vec4 v_color;\n"
    "out vec4 frag;\n"
    "void main() {\n"
    "    frag = vec4(float(bitCount(gl_SampleMaskIn[0])) / 4.0, 0, 0, 1);\n"
    "}\n";
static const Rgba ms_in_colours[5] = {
    { { 0, 0, 0, 255 } }, { { 64, 0, 0, 255 } }, { { 128, 0, 0, 255 } },
    { { 191, 0, 0, 255 } }, { { 255, 0, 0, 255 } },
};
static const Rgba ms_id_colours[4] = {
    { { 255, 0, 0, 255 } }, { { 0, 255, 0, 255 } },
    { { 0, 0, 255, 255 } }, { { 255, 255, 255, 255 } },
};

/*
 * A fresh 4x target (ms_want samples; colour, depth of @depth_fmt) and a
 * single-sampled colour renderbuffer to resolve into, the colour cleared
 * to @clear, depth to 1; the target bound, its viewport set.  *@pos gets
 * the sample positions; false if GL gives no such target.
 */
typedef struct MsTarget {
    GLuint rb[3], fbo[2];
} MsTarget;

static int ms_begin(MsTarget *m, GLenum depth_fmt, const Rgba *clear,
                    float pos[][2])
{
    GLint samples = 0;
    int ok;

    glGenRenderbuffers(3, m->rb);
    glBindRenderbuffer(GL_RENDERBUFFER, m->rb[0]);
    glRenderbufferStorageMultisample(GL_RENDERBUFFER, ms_want, GL_RGBA8,
                                     MS_SIZE, MS_SIZE);
    glBindRenderbuffer(GL_RENDERBUFFER, m->rb[1]);
    glRenderbufferStorageMultisample(GL_RENDERBUFFER, ms_want, depth_fmt,
                                     MS_SIZE, MS_SIZE);
    glBindRenderbuffer(GL_RENDERBUFFER, m->rb[2]);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, MS_SIZE, MS_SIZE);
    glGenFramebuffers(2, m->fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, m->fbo[1]);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
                              GL_RENDERBUFFER, m->rb[2]);
    glBindFramebuffer(GL_FRAMEBUFFER, m->fbo[0]);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
                              GL_RENDERBUFFER, m->rb[0]);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT,
                              GL_RENDERBUFFER, m->rb[1]);
    glGetIntegerv(GL_SAMPLES, &samples);
    /* GL gives at least the samples asked for (llvmpipe: 4 for 2) */
    ok = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE &&
         samples >= ms_want && samples <= MS_SAMPLES;
    ms_n = ok ? samples : ms_want;
    for (int i = 0; ok && i < ms_n; i++) {
        glGetMultisamplefv(GL_SAMPLE_POSITION, i, pos[i]);
    }
    glViewport(0, 0, MS_SIZE, MS_SIZE);
    glDisable(GL_SCISSOR_TEST);
    glDisable(GL_BLEND);
    glClearColor(clear->c[0] / 255.0f, clear->c[1] / 255.0f,
                 clear->c[2] / 255.0f, clear->c[3] / 255.0f);
    glClearDepthf(1.0f);
    glDepthMask(GL_TRUE);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    return ok;
}

/* Resolve the colour, read it back into ms_image, free the target */
static int ms_end(MsTarget *m)
{
    int ok;

    glBindFramebuffer(GL_READ_FRAMEBUFFER, m->fbo[0]);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, m->fbo[1]);
    glBlitFramebuffer(0, 0, MS_SIZE, MS_SIZE, 0, 0, MS_SIZE, MS_SIZE,
                      GL_COLOR_BUFFER_BIT, GL_NEAREST);
    glBindFramebuffer(GL_FRAMEBUFFER, m->fbo[1]);
    glReadPixels(0, 0, MS_SIZE, MS_SIZE, GL_RGBA, GL_UNSIGNED_BYTE, ms_image);
    ok = glGetError() == GL_NO_ERROR;
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glDeleteFramebuffers(2, m->fbo);
    glDeleteRenderbuffers(3, m->rb);
    return ok;
}

/* Draw @n (at most 4) triangles @t with @prog, in the scene's layout */
static void ms_triangles(GLuint prog, const MsTri *t, int n)
{
    GLfloat v[4][3 * VTX_FLOATS];
    GLuint vao, vbo;

    glUseProgram(prog);
    for (int i = 0; i < n && i < 4; i++) {
        for (int k = 0; k < 3; k++) {
            /* the scene's vertex layout, over the small target */
            put_vertex(v[i] + k * VTX_FLOATS, t[i].v[k][0] * SIZE / MS_SIZE,
                       t[i].v[k][1] * SIZE / MS_SIZE, t[i].z, t[i].c, 0, 0);
        }
    }
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glGenBuffers(1, &vbo);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof(v), v, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, VTX_FLOATS * 4, NULL);
    glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, VTX_FLOATS * 4,
                          (void *)(3 * 4));
    glEnableVertexAttribArray(0);
    glEnableVertexAttribArray(1);
    glDrawArrays(GL_TRIANGLES, 0, 3 * (n < 4 ? n : 4));
    glBindVertexArray(0);
    glDeleteVertexArrays(1, &vao);
    glDeleteBuffers(1, &vbo);
}

/*
 * Draw @n triangles (depth test LESS; with @blend, blended with
 * SRC_ALPHA, ONE_MINUS_SRC_ALPHA) into a fresh 4x target cleared to the
 * background, resolve, read back into ms_image.  *@pos gets the sample
 * positions; false on a GL failure.
 */
static int ms_draw(GLuint prog, const MsTri *t, int n, float pos[][2],
                   int blend)
{
    MsTarget m;
    int ok = ms_begin(&m, GL_DEPTH_COMPONENT24, &background, pos);

    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    if (blend) {
        glEnable(GL_BLEND);
        glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    }
    ms_triangles(prog, t, n);
    glDisable(GL_BLEND);
    glDisable(GL_DEPTH_TEST);
    return ms_end(&m) && ok;
}

/*
 * The value sample @s of pixel (@x, @y) should hold: the colour of the
 * nearest triangle covering it (@mask: the samples the fragment shader
 * keeps), else the background; NULL if a sample lies on an edge
 */
static const Rgba *ms_sample_colour(const MsTri *t, int n, unsigned mask,
                                    float pos[][2], int x, int y, int s)
{
    const Rgba *c = &background;
    float z = 1.0f;

    for (int i = 0; i < n; i++) {
        int in = tri_inside(t[i].v, x + pos[s][0], y + pos[s][1]);

        if (in < 0) {
            return NULL;
        }
        /* z in NDC: depth = z / 2 + 1 / 2, LESS */
        if (in && (mask >> s & 1) && t[i].z / 2 + 0.5f < z) {
            z = t[i].z / 2 + 0.5f;
            c = t[i].per_sample ? &t[i].per_sample[s] :
                t[i].want ? t[i].want : t[i].c;
        }
    }
    return c;
}

/*
 * Judge ms_image against the reference: two TAP lines, @name-interior
 * (pixels whose samples agree: within @tol/255, 0 unless blended) and
 * @name-edges (the others: within (@tol + 1)/255 of the mean; at least
 * @min_edges of them)
 */
static void ms_judge(const char *name, const MsTri *t, int n, unsigned mask,
                     float pos[][2], int min_edges, int tol, int drawn)
{
    char why[200] = "", ewhy[200] = "", tap[64];
    int interior_ok = drawn, edges_ok = drawn, edges = 0;

    if (!drawn) {
        snprintf(why, sizeof(why), "no complete 4x framebuffer");
        snprintf(ewhy, sizeof(ewhy), "%s", why);
    }
    for (int y = 0; drawn && y < MS_SIZE; y++) {
        for (int x = 0; x < MS_SIZE; x++) {
            const Rgba *c[MS_SAMPLES];
            int same = 1, skip = 0, k = 0;

            for (int s = 0; s < ms_n; s++) {
                c[s] = ms_sample_colour(t, n, mask, pos, x, y, s);
                skip |= !c[s];
                k += c[s] && c[s] != &background;
            }
            for (int s = 0; s < ms_n; s++) {
                if (t->by_count && c[s] && c[s] != &background) {
                    c[s] = &t->by_count[k];
                }
                same &= c[s] == c[0];
            }
            if (skip) {
                continue;
            }
            edges += !same;
            for (int i = 0; i < 4; i++) {
                int sum = 0, got = ms_image[y][x][i];
                double mean;

                for (int s = 0; s < ms_n; s++) {
                    sum += c[s]->c[i];
                }
                mean = sum / (double)ms_n;
                if (same && abs(got - c[0]->c[i]) > tol && interior_ok) {
                    interior_ok = 0;
                    snprintf(why, sizeof(why), "pixel (%d,%d) channel %d is "
                             "%d, expected %d (+-%d)", x, y, i, got,
                             c[0]->c[i], tol);
                } else if (!same && fabs(got - mean) > tol + 1 && edges_ok) {
                    edges_ok = 0;
                    snprintf(ewhy, sizeof(ewhy), "edge pixel (%d,%d) "
                             "channel %d is %d, expected %.2f (+-%d)", x, y,
                             i, got, mean, tol + 1);
                }
            }
        }
    }
    if (edges_ok && edges < min_edges) {
        edges_ok = 0;
        snprintf(ewhy, sizeof(ewhy), "only %d edge pixels", edges);
    }
    snprintf(tap, sizeof(tap), "%s-interior", name);
    tap_report(tap, interior_ok, why);
    snprintf(tap, sizeof(tap), "%s-edges", name);
    tap_report(tap, edges_ok, ewhy);
}

/*
 * msaa-alpha-to-coverage-*: a quad over the 4x target, white with alpha
 * b / 7 in band b (columns 8b to 8b + 7), under
 * GL_SAMPLE_ALPHA_TO_COVERAGE, over a transparent black clear: the
 * resolved red channel counts the samples covered (255 k / n), judged by
 * tap.c's a2c_judge()
 */
static const char *const a2c_fs =
    "#version 320 es\n"
    "precision highp float;\n"
    "out vec4 frag;\n"
    "void main() {\n"
    "    frag = vec4(1, 1, 1, floor(gl_FragCoord.x / 8.0) / 7.0);\n"
    "}\n";

static void check_alpha_to_coverage(void)
{
    static const Rgba clear = { { 0, 0, 0, 0 } };
    static const MsTri quad[2] = {
        { { { 0, 0 }, { MS_SIZE, 0 }, { MS_SIZE, MS_SIZE } }, 0,
          &background, NULL, NULL, NULL },
        { { { 0, 0 }, { MS_SIZE, MS_SIZE }, { 0, MS_SIZE } }, 0,
          &background, NULL, NULL, NULL },
    };
    static int k[MS_SIZE * MS_SIZE];
    GLuint prog = program(ms_vs, a2c_fs);
    float pos[MS_SAMPLES][2];
    MsTarget m;
    int ok;

    ok = prog && ms_begin(&m, GL_DEPTH_COMPONENT24, &clear, pos);
    glEnable(GL_SAMPLE_ALPHA_TO_COVERAGE);
    ms_triangles(prog, quad, 2);
    glDisable(GL_SAMPLE_ALPHA_TO_COVERAGE);
    ok &= ms_end(&m);
    for (int y = 0; y < MS_SIZE; y++) {
        for (int x = 0; x < MS_SIZE; x++) {
            k[y * MS_SIZE + x] =
                ok ? (int)lround(ms_image[y][x][0] * ms_n / 255.0) : -1;
        }
    }
    a2c_judge("gles-scene", "msaa-alpha-to-coverage", k, MS_SIZE, ms_n);
}

/*
 * msaa-depth-blit-*: the two triangles at depths 0.25 and 0.625 (exact in
 * D32F) into a 4x GL_DEPTH_COMPONENT32F renderbuffer, whose depth
 * glBlitFramebuffer resolves into a single-sampled D32F texture, read back
 * through a shader (texelFetch into an R32F target).  GLES resolves depth
 * "in an implementation-dependent manner": pixels whose samples agree
 * must hold their value exactly (-interior), the others one within the
 * range of their samples (-edges; which rule the driver took is printed)
 */
static const char *const zblit_vs =
    "#version 300 es\n"
    "void main() {\n"
    "    vec2 p = vec2(gl_VertexID & 1, gl_VertexID >> 1) * 4.0 - 1.0;\n"
    "    gl_Position = vec4(p, 0, 1);\n"
    "}\n";
static const char *const zblit_fs =
    "#version 300 es\n"
    "precision highp float;\n"
    "uniform highp sampler2D depth;\n"
    "out vec4 frag;\n"
    "void main() {\n"
    "    frag = vec4(texelFetch(depth, ivec2(gl_FragCoord.xy), 0).r);\n"
    "}\n";

static void check_depth_blit(void)
{
    static const MsTri tris[2] = {
        { { { 6.3f, 5.7f }, { 58.1f, 12.9f }, { 20.6f, 59.2f } }, -0.5f,
          &near_red, NULL, NULL, NULL },
        { { { 30.2f, 3.1f }, { 62.7f, 40.4f }, { 9.8f, 50.9f } }, 0.25f,
          &far_green, NULL, NULL, NULL },
    };
    static GLfloat got[MS_SIZE][MS_SIZE][4];
    GLuint prog = program(ms_vs, ms_fs), rprog = program(zblit_vs, zblit_fs);
    GLuint tex[2], fbo[2];
    float pos[MS_SAMPLES][2];
    char why[160] = "no complete 4x framebuffer", ewhy[160];
    int ok, edges_ok, edges = 0, as_s0 = 0, as_min = 0, as_max = 0;
    MsTarget m;

    ok = prog && rprog && ms_begin(&m, GL_DEPTH_COMPONENT32F, &background,
                                   pos);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    ms_triangles(prog, tris, 2);
    glDisable(GL_DEPTH_TEST);
    glGenTextures(2, tex);
    glBindTexture(GL_TEXTURE_2D, tex[0]);
    glTexStorage2D(GL_TEXTURE_2D, 1, GL_DEPTH_COMPONENT32F, MS_SIZE,
                   MS_SIZE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glBindTexture(GL_TEXTURE_2D, tex[1]);
    glTexStorage2D(GL_TEXTURE_2D, 1, GL_R32F, MS_SIZE, MS_SIZE);
    glGenFramebuffers(2, fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo[0]);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT,
                           GL_TEXTURE_2D, tex[0], 0);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, m.fbo[0]);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, fbo[0]);
    glBlitFramebuffer(0, 0, MS_SIZE, MS_SIZE, 0, 0, MS_SIZE, MS_SIZE,
                      GL_DEPTH_BUFFER_BIT, GL_NEAREST);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo[1]);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
                           GL_TEXTURE_2D, tex[1], 0);
    ok &= glCheckFramebufferStatus(GL_FRAMEBUFFER) ==
          GL_FRAMEBUFFER_COMPLETE;
    glUseProgram(rprog);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, tex[0]);
    glUniform1i(glGetUniformLocation(rprog, "depth"), 0);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glReadPixels(0, 0, MS_SIZE, MS_SIZE, GL_RGBA, GL_FLOAT, got);
    ok &= glGetError() == GL_NO_ERROR;
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glDeleteFramebuffers(2, fbo);
    glDeleteTextures(2, tex);
    ok &= ms_end(&m);
    edges_ok = ok;
    snprintf(ewhy, sizeof(ewhy), "%s", why);
    for (int y = 0; ok && y < MS_SIZE; y++) {
        for (int x = 0; x < MS_SIZE; x++) {
            float z[MS_SAMPLES], lo = 2, hi = -1, g = got[y][x][0];
            bool skip = false;

            for (int s = 0; s < ms_n; s++) {
                z[s] = 1.0f;
                for (int i = 0; i < 2; i++) {
                    int in = tri_inside(tris[i].v, x + pos[s][0],
                                        y + pos[s][1]);
                    float d = tris[i].z / 2 + 0.5f;

                    skip |= in < 0;
                    z[s] = in > 0 && d < z[s] ? d : z[s];
                }
                lo = z[s] < lo ? z[s] : lo;
                hi = z[s] > hi ? z[s] : hi;
            }
            if (skip) {
                continue;
            }
            if (lo == hi && g != lo) {
                snprintf(why, sizeof(why), "pixel (%d,%d) depth %.9g, "
                         "expected %.9g", x, y, g, lo);
                ok = 0;
            } else if (lo != hi) {
                edges++;
                as_s0 += g == z[0];
                as_min += g == lo;
                as_max += g == hi;
                if (!(g >= lo && g <= hi) && edges_ok) {
                    snprintf(ewhy, sizeof(ewhy), "edge pixel (%d,%d) depth "
                             "%.9g, its samples from %.9g to %.9g", x, y, g,
                             lo, hi);
                    edges_ok = 0;
                }
            }
        }
    }
    printf("gles-scene: msaa-depth-blit: of %d edge pixels %d hold sample "
           "0's depth, %d the least, %d the greatest\n", edges, as_s0,
           as_min, as_max);
    if (edges_ok && edges < 20) {
        snprintf(ewhy, sizeof(ewhy), "only %d edge pixels", edges);
        edges_ok = 0;
    }
    tap_report("msaa-depth-blit-interior", ok, why);
    tap_report("msaa-depth-blit-edges", edges_ok && ok, ewhy);
}

/*
 * msaa-*: two triangles under the depth test, the nearer drawn first;
 * msaa-mask-*: one triangle whose fragment shader keeps samples 0 and 3
 * (gl_SampleMask); msaa-sample-id-*: one whose shader gives each sample
 * its own colour (gl_SampleID: sample shading), a covered pixel resolving
 * to their mean; msaa-blend-*: one white at alpha 128/255 blended over
 * the background (each covered sample blended with its own destination);
 * msaa-sample-mask-in-*: one whose shader writes the share of its pixel's
 * samples it covers (gl_SampleMaskIn; rounding: 1/255); msaa-2x-*: the
 * two triangles in a target of 2 samples (or the more GL gives)
 */
static void check_msaa(void)
{
    static const MsTri tris[2] = {
        { { { 6.3f, 5.7f }, { 58.1f, 12.9f }, { 20.6f, 59.2f } }, -0.2f,
          &near_red, NULL, NULL, NULL },
        { { { 30.2f, 3.1f }, { 62.7f, 40.4f }, { 9.8f, 50.9f } }, 0.4f,
          &far_green, NULL, NULL, NULL },
    };
    static const Rgba white = { { 255, 255, 255, BLEND_ALPHA } };
    GLuint prog = program(ms_vs, ms_fs), mprog = program(ms_vs, ms_mask_fs);
    GLuint iprog = program(ms_vs, ms_id_fs);
    GLuint inprog = program(ms_vs, ms_in_fs);
    float pos[MS_SAMPLES][2] = { { 0 } };
    MsTri one = tris[0];
    Rgba blended;
    int drawn;

    drawn = prog && ms_draw(prog, tris, 2, pos, 0);
    printf("gles-scene: sample positions (%.4f,%.4f) (%.4f,%.4f) "
           "(%.4f,%.4f) (%.4f,%.4f)\n", pos[0][0], pos[0][1], pos[1][0],
           pos[1][1], pos[2][0], pos[2][1], pos[3][0], pos[3][1]);
    ms_judge("msaa", tris, 2, 0xf, pos, 100, 0, drawn);
    drawn = mprog && ms_draw(mprog, tris, 1, pos, 0);
    ms_judge("msaa-mask", tris, 1, 0x9, pos, 1, 0, drawn);
    one.per_sample = ms_id_colours;
    drawn = iprog && ms_draw(iprog, &one, 1, pos, 0);
    ms_judge("msaa-sample-id", &one, 1, 0xf, pos, 100, 0, drawn);
    /* src * a + dst * (1 - a); alpha: a * a + 1 * (1 - a) */
    for (int i = 0; i < 4; i++) {
        float a = BLEND_ALPHA / 255.0f;
        float src = i < 3 ? 1.0f : a;

        blended.c[i] = (int)((src * a + background.c[i] / 255.0f * (1 - a)) *
                             255 + 0.5f);
    }
    one.per_sample = NULL;
    one.c = &white;
    one.want = &blended;
    drawn = prog && ms_draw(prog, &one, 1, pos, 1);
    ms_judge("msaa-blend", &one, 1, 0xf, pos, 20, 1, drawn);
    one.want = NULL;
    one.by_count = ms_in_colours;
    drawn = inprog && ms_draw(inprog, &one, 1, pos, 0);
    ms_judge("msaa-sample-mask-in", &one, 1, 0xf, pos, 100, 1, drawn);
    /* the two triangles in 2x, as GL places its samples */
    ms_want = 2;
    drawn = prog && ms_draw(prog, tris, 2, pos, 0);
    printf("gles-scene: %d samples for 2 at (%.4f,%.4f) (%.4f,%.4f)\n",
           ms_n, pos[0][0], pos[0][1], pos[1][0], pos[1][1]);
    ms_judge("msaa-2x", tris, 2, 0xf, pos, 100, 0, drawn);
    ms_want = MS_SAMPLES;
    check_alpha_to_coverage();
    check_depth_blit();
}

/* --- image files -------------------------------------------------------- */

static int write_ppm(const char *path)
{
    FILE *f = fopen(path, "r+b");

    if (!f) {
        f = fopen(path, "wb");
    }
    if (!f) {
        return 0;
    }
    fprintf(f, "P6\n%d %d\n255\n", SIZE, SIZE);
    for (int y = SIZE - 1; y >= 0; y--) {
        for (int x = 0; x < SIZE; x++) {
            fwrite(image[y][x], 1, 3, f);
        }
    }
    return fclose(f) == 0;
}

/* The pixels of @path's PPM differing from ours by more than 3/255 */
static void compare_ppm(const char *path)
{
    static unsigned char ref[SIZE][SIZE][3];
    char why[160] = "";
    int w = 0, h = 0, max = 0, differ = 0, worst = 0;
    FILE *f = fopen(path, "rb");

    if (!f || fscanf(f, "P6 %d %d %d", &w, &h, &max) != 3 || w != SIZE ||
        h != SIZE || max != 255 || fgetc(f) == EOF ||
        fread(ref, 1, sizeof(ref), f) != sizeof(ref)) {
        snprintf(why, sizeof(why), "no %dx%d reference image %s", SIZE,
                 SIZE, path);
        tap_report("matches-reference", 0, why);
        if (f) {
            fclose(f);
        }
        return;
    }
    fclose(f);
    for (int y = 0; y < SIZE; y++) {
        for (int x = 0; x < SIZE; x++) {
            int d = 0;

            for (int i = 0; i < 3; i++) {
                int e = abs(ref[SIZE - 1 - y][x][i] - image[y][x][i]);

                d = e > d ? e : d;
            }
            differ += d > 3;
            worst = d > worst ? d : worst;
        }
    }
    /* Edges may differ where rounding puts a centre on the other side */
    snprintf(why, sizeof(why), "%d of %d pixels differ by more than 3 "
             "(at most %d)", differ, SIZE * SIZE, worst);
    printf("gles-scene: reference: %s\n", why);
    tap_report("matches-reference", differ <= SIZE * SIZE / 100, why);
}

int main(int argc, char **argv)
{
    const char *out = NULL, *ref = NULL, *err;
    int software = 0, frames = 1;
    bool host = false;
    EglCtx e;
    double t0;
    Scene s;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--software")) {
            software = 1;
        } else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            out = argv[++i];
        } else if (!strcmp(argv[i], "--ref") && i + 1 < argc) {
            ref = argv[++i];
        } else if (!strcmp(argv[i], "-n") && i + 1 < argc) {
            frames = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--host-checks")) {
            host = true;
        } else {
            printf("usage: gles-scene [--software] [-o OUT.ppm] "
                   "[--ref REF.ppm] [-n FRAMES] [--host-checks]\n");
            return 2;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    err = egl_open(&e, software, 3, 0);
    if (err) {
        return die(err);
    }
    printf("gles-scene: EGL %d.%d, %s, %s\n", e.major, e.minor,
           (const char *)glGetString(GL_RENDERER),
           (const char *)glGetString(GL_VERSION));
    /* compressed formats the model does not decode: does GL offer them? */
    for (int i = 0; i < 4; i++) {
        static const char *const ext[4] = {
            "GL_KHR_texture_compression_astc_hdr",
            "GL_OES_texture_compression_astc",
            "GL_KHR_texture_compression_astc_sliced_3d",
            "GL_IMG_texture_compression_pvrtc",
        };
        const char *all = (const char *)glGetString(GL_EXTENSIONS);

        printf("gles-scene: %s %s\n", ext[i],
               all && strstr(all, ext[i]) ? "offered" : "not offered");
    }
    if (!scene_init(&s)) {
        return die("scene set-up");
    }
    /* One frame first: the shaders compile before the timing starts */
    scene_draw(&s);
    glFinish();
    t0 = now_ms();
    for (int i = 1; i < frames; i++) {
        scene_draw(&s);
        glFinish();
    }
    if (frames > 1) {
        double ms = now_ms() - t0;

        printf("gles-scene: %d frames in %.1f ms: %.2f frames/s\n",
               frames - 1, ms, (frames - 1) * 1000.0 / ms);
    }
    glReadPixels(0, 0, SIZE, SIZE, GL_RGBA, GL_UNSIGNED_BYTE, image);
    if (glGetError() != GL_NO_ERROR) {
        return die("a GL call failed");
    }
    check_scene();
    check_msaa();
    if (ref) {
        compare_ppm(ref);
    }
    check_zs();
    check_subpixel_snap();
    if (out && !write_ppm(out)) {
        return die("cannot write the image");
    }
    if (frames == 1) {
        check_many_draws(&s, host && !software);
    }
    printf("gles-scene: %d of %d checks passed\n", tap_checks - tap_failed,
           tap_checks);
    return tap_failed ? 1 : 0;
}
