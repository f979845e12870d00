/*
 * gl-compute: OpenGL ES 3.1 compute shaders through Mesa's asahi Gallium
 * driver (EGL surfaceless), each result checked against a CPU reference.
 * Written from the OpenGL ES 3.1 and GLSL ES 3.10 specifications.  Each
 * check is one TAP line, as vk-ops prints them:
 *
 *   ok N name
 *   not ok N name - what differed (first bad index, got, want)
 *
 * then a plan line "1..N" and a summary.
 *
 *   gl-compute [--only NAME[,NAME...]]
 *                  exit 0 if every check passed, 1 if one failed, 2 if
 *                  the program could not run them (no GLES 3.1 context)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "egl-util.h"
#include "tap.h"
#include "vk-ops-astc-hdr.h"

/* GLES2/gl2ext.h's, which gl31.h does not bring */
#ifndef GL_COMPRESSED_RGBA_ASTC_4x4_KHR
#define GL_COMPRESSED_RGBA_ASTC_4x4_KHR 0x93B0
#endif

#define N 4096                  /* invocations of the 1D checks */
#define LOCAL 64
#define IMG 64                  /* the image checks' image: IMG x IMG */
#define SENTINEL 0xdeadbeefu    /* what no invocation writes */

static const char *only;

static bool wanted(const char *name)
{
    return tap_wanted(only, name);
}

static bool check_u32(const char *name, const uint32_t *got,
                      const uint32_t *want, unsigned n)
{
    char why[160];

    for (unsigned i = 0; i < n; i++) {
        if (got[i] != want[i]) {
            snprintf(why, sizeof(why), "[%u] = 0x%08x, want 0x%08x",
                     i, got[i], want[i]);
            tap_fail(name, "%s", why);
            return false;
        }
    }
    tap_ok(name);
    return true;
}

/* A compute program from @src, or 0 (its log printed) */
static GLuint program(const char *name, const char *src)
{
    GLuint s = glCreateShader(GL_COMPUTE_SHADER), p;
    GLint ok = 0;
    char msg[1024];

    glShaderSource(s, 1, &src, NULL);
    glCompileShader(s);
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        glGetShaderInfoLog(s, sizeof(msg), NULL, msg);
        printf("gl-compute: %s: compile: %s\n", name, msg);
        glDeleteShader(s);
        return 0;
    }
    p = glCreateProgram();
    glAttachShader(p, s);
    glLinkProgram(p);
    glDeleteShader(s);
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    if (!ok) {
        glGetProgramInfoLog(p, sizeof(msg), NULL, msg);
        printf("gl-compute: %s: link: %s\n", name, msg);
        glDeleteProgram(p);
        return 0;
    }
    return p;
}

/* A shader storage buffer of @size bytes holding @data (or zeros) */
static GLuint ssbo(GLuint binding, const void *data, size_t size)
{
    GLuint b;
    void *zero = data ? NULL : calloc(1, size);

    glGenBuffers(1, &b);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, b);
    glBufferData(GL_SHADER_STORAGE_BUFFER, size, data ? data : zero,
                 GL_DYNAMIC_COPY);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, binding, b);
    free(zero);
    return b;
}

/* Read @size bytes of buffer @b back into @out, after the shaders' writes */
static bool readback(GLuint b, void *out, size_t size)
{
    void *p;

    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, b);
    p = glMapBufferRange(GL_SHADER_STORAGE_BUFFER, 0, size, GL_MAP_READ_BIT);
    if (!p) {
        return false;
    }
    memcpy(out, p, size);
    glUnmapBuffer(GL_SHADER_STORAGE_BUFFER);
    return true;
}

/* Compile @src, dispatch @gx x @gy groups, read buffer @b back */
static bool run(const char *name, const char *src, GLuint gx, GLuint gy,
                GLuint b, void *out, size_t size)
{
    GLuint p = program(name, src);
    char why[64];
    GLenum err;

    if (!p) {
        tap_fail(name, "the shader did not compile");
        return false;
    }
    glUseProgram(p);
    glDispatchCompute(gx, gy, 1);
    if (!readback(b, out, size)) {
        tap_fail(name, "glMapBufferRange failed");
        glDeleteProgram(p);
        return false;
    }
    glDeleteProgram(p);
    err = glGetError();
    if (err != GL_NO_ERROR) {
        snprintf(why, sizeof(why), "GL error 0x%x", err);
        tap_fail(name, "%s", why);
        return false;
    }
    return true;
}

/* inputs; results and references (the largest check has 8 x 1024) */
static uint32_t in[N], got[2 * N], want[2 * N];

/* 32-bit integer and float arithmetic, one SSBO in and one out */
static void test_ssbo(void)
{
    static const char src[] =
        "#version 310 es\n"
        "layout(local_size_x = 64) in;\n"
        "layout(std430, binding = 0) readonly buffer In { uint a[]; };\n"
        "layout(std430, binding = 1) writeonly buffer Out { uint o[]; };\n"
        "void main() {\n"
        "    uint i = gl_GlobalInvocationID.x;\n"
        "    uint x = a[i];\n"
        "    uint r = (x * 3u + (x >> 7)) ^ (i << 3);\n"
        "    float f = float(x & 0xffffu) * 0.5 + 1.0;\n"
        "    o[2u * i] = r;\n"
        "    o[2u * i + 1u] = floatBitsToUint(f);\n"
        "}\n";
    const char *name = "gl/ssbo-int-float";
    GLuint b;

    if (!wanted(name)) {
        return;
    }
    for (uint32_t i = 0; i < N / 2; i++) {
        float f = (float)(in[i] & 0xffff) * 0.5f + 1.0f;

        want[2 * i] = (in[i] * 3u + (in[i] >> 7)) ^ (i << 3);
        memcpy(&want[2 * i + 1], &f, 4);
    }
    ssbo(0, in, sizeof(in));
    b = ssbo(1, NULL, N * 4);
    if (run(name, src, N / 2 / LOCAL, 1, b, got, N * 4)) {
        check_u32(name, got, want, N);
    }
}

/* Threadgroup memory across a barrier: each group reverses its values */
static void test_shared(void)
{
    static const char src[] =
        "#version 310 es\n"
        "layout(local_size_x = 64) in;\n"
        "layout(std430, binding = 0) readonly buffer In { uint a[]; };\n"
        "layout(std430, binding = 1) writeonly buffer Out { uint o[]; };\n"
        "shared uint s[64];\n"
        "void main() {\n"
        "    uint l = gl_LocalInvocationID.x;\n"
        "    uint i = gl_GlobalInvocationID.x;\n"
        "    s[l] = a[i];\n"
        "    barrier();\n"
        "    o[i] = s[63u - l] + s[(l + 1u) & 63u] * 2u;\n"
        "}\n";
    const char *name = "gl/shared-barrier";
    GLuint b;

    if (!wanted(name)) {
        return;
    }
    for (uint32_t i = 0; i < N; i++) {
        uint32_t g = i & ~63u, l = i & 63;

        want[i] = in[g + 63 - l] + in[g + ((l + 1) & 63)] * 2;
    }
    ssbo(0, in, sizeof(in));
    b = ssbo(1, NULL, N * 4);
    if (run(name, src, N / LOCAL, 1, b, got, N * 4)) {
        check_u32(name, got, want, N);
    }
}

/* Buffer atomics: add, min, max, and, or, xor, a compare-and-swap loop */
static void test_atomics(void)
{
    static const char src[] =
        "#version 310 es\n"
        "layout(local_size_x = 64) in;\n"
        "layout(std430, binding = 0) readonly buffer In { uint a[]; };\n"
        "layout(std430, binding = 1) buffer Out { uint c[8]; };\n"
        "void main() {\n"
        "    uint x = a[gl_GlobalInvocationID.x];\n"
        "    atomicAdd(c[0], x & 0xffu);\n"
        "    atomicMin(c[1], x);\n"
        "    atomicMax(c[2], x);\n"
        "    atomicAnd(c[3], x | 0x00ff00ffu);\n"
        "    atomicOr(c[4], x & 0x11111111u);\n"
        "    atomicXor(c[5], x);\n"
        "    uint old = c[6], seen;\n"
        "    for (int k = 0; k < 100000; k++) {\n"
        "        seen = atomicCompSwap(c[6], old, old + 3u);\n"
        "        if (seen == old) break;\n"
        "        old = seen;\n"
        "    }\n"
        "    atomicExchange(c[7], 0x5a5a5a5au);\n"
        "}\n";
    const char *name = "gl/atomics-buffer";
    uint32_t init[8] = { 0, ~0u, 0, ~0u, 0, 0, 0, 0 };
    GLuint b;

    if (!wanted(name)) {
        return;
    }
    memcpy(want, init, sizeof(init));
    for (uint32_t i = 0; i < N; i++) {
        want[0] += in[i] & 0xff;
        want[1] = in[i] < want[1] ? in[i] : want[1];
        want[2] = in[i] > want[2] ? in[i] : want[2];
        want[3] &= in[i] | 0x00ff00ff;
        want[4] |= in[i] & 0x11111111;
        want[5] ^= in[i];
        want[6] += 3;
    }
    want[7] = 0x5a5a5a5a;
    ssbo(0, in, sizeof(in));
    b = ssbo(1, init, sizeof(init));
    if (run(name, src, N / LOCAL, 1, b, got, sizeof(init))) {
        check_u32(name, got, want, 8);
    }
}

/* Threadgroup atomics: a histogram per group, added to a global one */
static void test_shared_atomics(void)
{
    static const char src[] =
        "#version 310 es\n"
        "layout(local_size_x = 64) in;\n"
        "layout(std430, binding = 0) readonly buffer In { uint a[]; };\n"
        "layout(std430, binding = 1) buffer Out { uint h[16]; };\n"
        "shared uint s[16];\n"
        "void main() {\n"
        "    uint l = gl_LocalInvocationID.x;\n"
        "    if (l < 16u) s[l] = 0u;\n"
        "    barrier();\n"
        "    atomicAdd(s[a[gl_GlobalInvocationID.x] & 15u], 1u);\n"
        "    barrier();\n"
        "    if (l < 16u) atomicAdd(h[l], s[l]);\n"
        "}\n";
    const char *name = "gl/atomics-shared";
    GLuint b;

    if (!wanted(name)) {
        return;
    }
    memset(want, 0, 16 * 4);
    for (uint32_t i = 0; i < N; i++) {
        want[in[i] & 15]++;
    }
    ssbo(0, in, sizeof(in));
    b = ssbo(1, NULL, 16 * 4);
    if (run(name, src, N / LOCAL, 1, b, got, 16 * 4)) {
        check_u32(name, got, want, 16);
    }
}

/* Divergent loops: a bounded Collatz walk per invocation */
static void test_flow(void)
{
    static const char src[] =
        "#version 310 es\n"
        "layout(local_size_x = 64) in;\n"
        "layout(std430, binding = 0) readonly buffer In { uint a[]; };\n"
        "layout(std430, binding = 1) writeonly buffer Out { uint o[]; };\n"
        "void main() {\n"
        "    uint i = gl_GlobalInvocationID.x;\n"
        "    uint x = (a[i] & 0x3ffu) + 1u, steps = 0u;\n"
        "    while (x != 1u && steps < 200u) {\n"
        "        if ((x & 1u) != 0u) x = 3u * x + 1u; else x >>= 1;\n"
        "        steps++;\n"
        "    }\n"
        "    o[i] = steps | (x << 16);\n"
        "}\n";
    const char *name = "gl/control-flow";
    GLuint b;

    if (!wanted(name)) {
        return;
    }
    for (uint32_t i = 0; i < N; i++) {
        uint32_t x = (in[i] & 0x3ff) + 1, steps = 0;

        while (x != 1 && steps < 200) {
            x = (x & 1) ? 3 * x + 1 : x >> 1;
            steps++;
        }
        want[i] = steps | (x << 16);
    }
    ssbo(0, in, sizeof(in));
    b = ssbo(1, NULL, N * 4);
    if (run(name, src, N / LOCAL, 1, b, got, N * 4)) {
        check_u32(name, got, want, N);
    }
}

/* Uniforms and gl_NumWorkGroups/gl_WorkGroupID of a 2D direct dispatch */
static void test_uniforms(void)
{
    static const char src[] =
        "#version 310 es\n"
        "layout(local_size_x = 8, local_size_y = 4) in;\n"
        "layout(std430, binding = 1) writeonly buffer Out { uint o[]; };\n"
        "uniform uint k;\n"
        "uniform uvec2 m;\n"
        "void main() {\n"
        "    uvec3 g = gl_GlobalInvocationID;\n"
        "    uint w = gl_NumWorkGroups.x * gl_WorkGroupSize.x;\n"
        "    o[g.y * w + g.x] = k * g.x + m.x * g.y + m.y +\n"
        "        (gl_NumWorkGroups.y << 24) + (gl_WorkGroupID.y << 16) +\n"
        "        gl_LocalInvocationIndex;\n"
        "}\n";
    const char *name = "gl/uniforms-2d";
    const uint32_t gx = 5, gy = 7, w = gx * 8, h = gy * 4;
    GLuint p, b;

    if (!wanted(name)) {
        return;
    }
    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w; x++) {
            want[y * w + x] = 11 * x + 1000 * y + 77 + (gy << 24) +
                              ((y / 4) << 16) + (y % 4) * 8 + x % 8;
        }
    }
    b = ssbo(1, NULL, w * h * 4);
    p = program(name, src);
    if (!p) {
        tap_fail(name, "the shader did not compile");
        return;
    }
    glUseProgram(p);
    glUniform1ui(glGetUniformLocation(p, "k"), 11);
    glUniform2ui(glGetUniformLocation(p, "m"), 1000, 77);
    glDispatchCompute(gx, gy, 1);
    if (!readback(b, got, w * h * 4)) {
        tap_fail(name, "glMapBufferRange failed");
    } else {
        check_u32(name, got, want, w * h);
    }
    glDeleteProgram(p);
}

/* glDispatchComputeIndirect: the group counts come from a buffer */
static void test_indirect(void)
{
    static const char src[] =
        "#version 310 es\n"
        "layout(local_size_x = 64) in;\n"
        "layout(std430, binding = 1) writeonly buffer Out { uint o[]; };\n"
        "void main() {\n"
        "    uint i = gl_GlobalInvocationID.x;\n"
        "    o[i] = i * 7u + gl_NumWorkGroups.x * 0x10000u +\n"
        "           gl_NumWorkGroups.y * 0x1000000u;\n"
        "}\n";
    const char *name = "gl/dispatch-indirect";
    const GLuint groups[4] = { 0, 13, 1, 1 };   /* at offset 4 */
    GLuint p, b, ind;

    if (!wanted(name)) {
        return;
    }
    for (uint32_t i = 0; i < N; i++) {
        want[i] = i < 13 * 64 ? i * 7 + 13 * 0x10000 + 0x1000000 : SENTINEL;
        got[i] = SENTINEL;
    }
    b = ssbo(1, got, N * 4);
    glGenBuffers(1, &ind);
    glBindBuffer(GL_DISPATCH_INDIRECT_BUFFER, ind);
    glBufferData(GL_DISPATCH_INDIRECT_BUFFER, sizeof(groups), groups,
                 GL_STATIC_DRAW);
    p = program(name, src);
    if (!p) {
        tap_fail(name, "the shader did not compile");
        return;
    }
    glUseProgram(p);
    glDispatchComputeIndirect(4);
    if (!readback(b, got, N * 4)) {
        tap_fail(name, "glMapBufferRange failed");
    } else {
        check_u32(name, got, want, N);
    }
    glDeleteProgram(p);
}

/* imageStore into an r32ui texture, then imageLoad from it elsewhere */
static void test_image(void)
{
    static const char store_src[] =
        "#version 310 es\n"
        "layout(local_size_x = 8, local_size_y = 8) in;\n"
        "layout(r32ui, binding = 0) writeonly uniform highp uimage2D img;\n"
        "void main() {\n"
        "    ivec2 p = ivec2(gl_GlobalInvocationID.xy);\n"
        "    imageStore(img, p, uvec4(uint(p.x) * 1000u + uint(p.y)));\n"
        "}\n";
    static const char load_src[] =
        "#version 310 es\n"
        "layout(local_size_x = 8, local_size_y = 8) in;\n"
        "layout(r32ui, binding = 0) readonly uniform highp uimage2D img;\n"
        "layout(std430, binding = 1) writeonly buffer Out { uint o[]; };\n"
        "void main() {\n"
        "    ivec2 p = ivec2(gl_GlobalInvocationID.xy);\n"
        "    ivec2 q = ivec2(63 - p.y, p.x);\n"
        "    o[p.y * 64 + p.x] = imageLoad(img, q).x + 7u;\n"
        "}\n";
    const char *name = "gl/image-store-load";
    GLuint tex, ps, pl, b;

    if (!wanted(name)) {
        return;
    }
    for (uint32_t y = 0; y < IMG; y++) {
        for (uint32_t x = 0; x < IMG; x++) {
            want[y * IMG + x] = (IMG - 1 - y) * 1000 + x + 7;
        }
    }
    glGenTextures(1, &tex);
    glBindTexture(GL_TEXTURE_2D, tex);
    glTexStorage2D(GL_TEXTURE_2D, 1, GL_R32UI, IMG, IMG);
    b = ssbo(1, NULL, IMG * IMG * 4);
    ps = program(name, store_src);
    pl = program(name, load_src);
    if (!ps || !pl) {
        tap_fail(name, "a shader did not compile");
        return;
    }
    glBindImageTexture(0, tex, 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_R32UI);
    glUseProgram(ps);
    glDispatchCompute(IMG / 8, IMG / 8, 1);
    glMemoryBarrier(GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
    glBindImageTexture(0, tex, 0, GL_FALSE, 0, GL_READ_ONLY, GL_R32UI);
    glUseProgram(pl);
    glDispatchCompute(IMG / 8, IMG / 8, 1);
    if (!readback(b, got, IMG * IMG * 4)) {
        tap_fail(name, "glMapBufferRange failed");
    } else {
        check_u32(name, got, want, IMG * IMG);
    }
    glDeleteProgram(ps);
    glDeleteProgram(pl);
    glDeleteTextures(1, &tex);
}

/*
 * A uniform block, an atomic counter, and a 3D dispatch of 1024-thread
 * groups (16 x 8 x 8) whose loop crosses a barrier each iteration
 */
static void test_ubo_counter_big(void)
{
    static const char src[] =
        "#version 310 es\n"
        "layout(local_size_x = 16, local_size_y = 8, local_size_z = 8) in;\n"
        "layout(std140, binding = 2) uniform Params { uvec4 mul; uvec4 add; };\n"
        "layout(binding = 0, offset = 4) uniform atomic_uint counter;\n"
        "layout(std430, binding = 1) writeonly buffer Out { uint o[]; };\n"
        "shared uint s[1024];\n"
        "void main() {\n"
        "    uint l = gl_LocalInvocationIndex;\n"
        "    uint g = gl_WorkGroupID.x + gl_WorkGroupID.y * 2u +\n"
        "             gl_WorkGroupID.z * 4u;\n"
        "    uint v = l * mul.x + g * mul.y + add.z;\n"
        "    for (uint k = 0u; k < 4u; k++) {\n"
        "        s[l] = v;\n"
        "        barrier();\n"
        "        v = s[(l + 1u + k) & 1023u] + s[1023u - l] * mul.z;\n"
        "        barrier();\n"
        "    }\n"
        "    o[g * 1024u + l] = v;\n"
        "    if ((l & 7u) == 0u) atomicCounterIncrement(counter);\n"
        "}\n";
    const char *name = "gl/ubo-counter-1024";
    static const uint32_t params[8] = { 3, 1000, 5, 0, 0, 0, 17, 0 };
    static uint32_t s[1024], v[1024];
    uint32_t counter[2] = { 0, 100 };
    GLuint p, b, u, ac;

    if (!wanted(name)) {
        return;
    }
    for (uint32_t g = 0; g < 8; g++) {
        for (uint32_t l = 0; l < 1024; l++) {
            v[l] = l * 3 + g * 1000 + 17;
        }
        for (uint32_t k = 0; k < 4; k++) {
            memcpy(s, v, sizeof(s));
            for (uint32_t l = 0; l < 1024; l++) {
                v[l] = s[(l + 1 + k) & 1023] + s[1023 - l] * 5;
            }
        }
        memcpy(&want[g * 1024], v, sizeof(v));
    }
    b = ssbo(1, NULL, 8 * 1024 * 4);
    glGenBuffers(1, &u);
    glBindBuffer(GL_UNIFORM_BUFFER, u);
    glBufferData(GL_UNIFORM_BUFFER, sizeof(params), params, GL_STATIC_DRAW);
    glBindBufferBase(GL_UNIFORM_BUFFER, 2, u);
    glGenBuffers(1, &ac);
    glBindBuffer(GL_ATOMIC_COUNTER_BUFFER, ac);
    glBufferData(GL_ATOMIC_COUNTER_BUFFER, sizeof(counter), counter,
                 GL_DYNAMIC_COPY);
    glBindBufferBase(GL_ATOMIC_COUNTER_BUFFER, 0, ac);
    p = program(name, src);
    if (!p) {
        tap_fail(name, "the shader did not compile");
        return;
    }
    glUseProgram(p);
    glDispatchCompute(2, 2, 2);
    if (!readback(b, got, 8 * 1024 * 4)) {
        tap_fail(name, "glMapBufferRange failed");
    } else if (check_u32(name, got, want, 8 * 1024)) {
        glMemoryBarrier(GL_ATOMIC_COUNTER_BARRIER_BIT |
                        GL_BUFFER_UPDATE_BARRIER_BIT);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, ac);
        readback(ac, counter, sizeof(counter));
        want[0] = 0;
        want[1] = 100 + 8 * 1024 / 8;
        check_u32("gl/atomic-counter", counter, want, 2);
    }
    glDeleteProgram(p);
}

/* An r32ui texture written by a compute imageStore: (y * 16 + x) * seed */
static const char fill_src[] =
    "#version 310 es\n"
    "layout(local_size_x = 8, local_size_y = 8) in;\n"
    "layout(r32ui, binding = 0) writeonly uniform highp uimage2D img;\n"
    "uniform uint seed;\n"
    "void main() {\n"
    "    uvec2 p = gl_GlobalInvocationID.xy;\n"
    "    imageStore(img, ivec2(p), uvec4((p.y * 16u + p.x) * seed));\n"
    "}\n";

static GLuint filled_texture(uint32_t w, uint32_t h, uint32_t seed)
{
    GLuint tex, p = program("fill", fill_src);

    glGenTextures(1, &tex);
    glBindTexture(GL_TEXTURE_2D, tex);
    glTexStorage2D(GL_TEXTURE_2D, 1, GL_R32UI, w, h);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    if (p) {
        glBindImageTexture(0, tex, 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_R32UI);
        glUseProgram(p);
        glUniform1ui(glGetUniformLocation(p, "seed"), seed);
        glDispatchCompute(w / 8, h / 8, 1);
        glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT |
                        GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
        glDeleteProgram(p);
    }
    return tex;
}

/* imageAtomicAdd and imageAtomicMax on an r32ui image */
static void test_image_atomics(void)
{
    static const char src[] =
        "#version 310 es\n"
        "#extension GL_OES_shader_image_atomic : require\n"
        "layout(local_size_x = 64) in;\n"
        "layout(r32ui, binding = 0) coherent uniform highp uimage2D img;\n"
        "layout(std430, binding = 0) readonly buffer In { uint a[]; };\n"
        "void main() {\n"
        "    uint x = a[gl_GlobalInvocationID.x];\n"
        "    ivec2 p = ivec2(int(x & 7u), int((x >> 3) & 7u));\n"
        "    imageAtomicAdd(img, p, x >> 24);\n"
        "    imageAtomicMax(img, ivec2(p.x, p.y + 8), x);\n"
        "}\n";
    static const char read_src[] =
        "#version 310 es\n"
        "layout(local_size_x = 8, local_size_y = 16) in;\n"
        "layout(r32ui, binding = 0) readonly uniform highp uimage2D img;\n"
        "layout(std430, binding = 1) writeonly buffer Out { uint o[]; };\n"
        "void main() {\n"
        "    ivec2 p = ivec2(gl_GlobalInvocationID.xy);\n"
        "    o[p.y * 8 + p.x] = imageLoad(img, p).x;\n"
        "}\n";
    const char *name = "gl/image-atomics";
    GLuint tex, p, pr, b;

    if (!wanted(name)) {
        return;
    }
    memset(want, 0, 8 * 16 * 4);
    for (uint32_t i = 0; i < N; i++) {
        uint32_t x = in[i], px = x & 7, py = (x >> 3) & 7;

        want[py * 8 + px] += x >> 24;
        if (x > want[(py + 8) * 8 + px]) {
            want[(py + 8) * 8 + px] = x;
        }
    }
    tex = filled_texture(8, 16, 0);     /* zeros */
    ssbo(0, in, sizeof(in));
    b = ssbo(1, NULL, 8 * 16 * 4);
    p = program(name, src);
    pr = program(name, read_src);
    if (!p || !pr) {
        tap_fail(name, "a shader did not compile");
        return;
    }
    glBindImageTexture(0, tex, 0, GL_FALSE, 0, GL_READ_WRITE, GL_R32UI);
    glUseProgram(p);
    glDispatchCompute(N / LOCAL, 1, 1);
    glMemoryBarrier(GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
    glUseProgram(pr);
    glDispatchCompute(1, 1, 1);
    if (!readback(b, got, 8 * 16 * 4)) {
        tap_fail(name, "glMapBufferRange failed");
    } else {
        check_u32(name, got, want, 8 * 16);
    }
    glDeleteProgram(p);
    glDeleteProgram(pr);
    glDeleteTextures(1, &tex);
}

/*
 * A texture written by a compute imageStore (no upload: uploads are
 * blits, the 3D pipe's work), then read through a sampler by texelFetch
 * (a texel load) and by texture() with a nearest sampler at texel centres
 * (a sample)
 */
/*
 * Run @src with its sampler "t" on texture unit 0 bound to 2D texture
 * @tex, in @gx x @gy x 1 workgroups, and check the @n words it writes to
 * buffer @out against @want (@got: room for them)
 */
static void texture_check(const char *name, const char *src, GLuint tex,
                          GLuint gx, GLuint gy, GLuint out, uint32_t *got,
                          const uint32_t *want, size_t n)
{
    GLuint p = program(name, src);

    if (!p) {
        tap_fail(name, "the shader did not compile");
        return;
    }
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, tex);
    glUseProgram(p);
    glUniform1i(glGetUniformLocation(p, "t"), 0);
    glDispatchCompute(gx, gy, 1);
    if (glGetError() != GL_NO_ERROR) {
        tap_fail(name, "a GL call failed");
    } else if (!readback(out, got, n * 4)) {
        tap_fail(name, "glMapBufferRange failed");
    } else {
        check_u32(name, got, want, n);
    }
    glDeleteProgram(p);
}

static void test_texture(bool sample)
{
    static const char fetch_src[] =
        "#version 310 es\n"
        "layout(local_size_x = 8, local_size_y = 8) in;\n"
        "uniform highp usampler2D t;\n"
        "layout(std430, binding = 1) writeonly buffer Out { uint o[]; };\n"
        "void main() {\n"
        "    ivec2 p = ivec2(gl_GlobalInvocationID.xy);\n"
        "    o[p.y * 16 + p.x] = texelFetch(t, ivec2(15 - p.x, p.y), 0).x;\n"
        "}\n";
    static const char sample_src[] =
        "#version 310 es\n"
        "layout(local_size_x = 8, local_size_y = 8) in;\n"
        "uniform highp usampler2D t;\n"
        "layout(std430, binding = 1) writeonly buffer Out { uint o[]; };\n"
        "void main() {\n"
        "    ivec2 p = ivec2(gl_GlobalInvocationID.xy);\n"
        "    vec2 c = (vec2(15 - p.x, p.y) + 0.5) / 16.0;\n"
        "    o[p.y * 16 + p.x] = texture(t, c).x;\n"
        "}\n";
    const char *name = sample ? "gl/texture-sample" : "gl/texel-fetch";
    const uint32_t seed = sample ? 0x9e3779b9u : 0x85ebca6bu;
    GLuint tex, b;

    if (!wanted(name)) {
        return;
    }
    for (uint32_t y = 0; y < 16; y++) {
        for (uint32_t x = 0; x < 16; x++) {
            want[y * 16 + x] = (y * 16 + 15 - x) * seed;
        }
    }
    tex = filled_texture(16, 16, seed);
    b = ssbo(1, NULL, 16 * 16 * 4);
    texture_check(name, sample ? sample_src : fetch_src, tex, 2, 2, b, got,
                  want, 16 * 16);
    glDeleteBuffers(1, &b);
    glDeleteTextures(1, &tex);
}

/*
 * gl/compressed-etc2-mips: a 513x260 ETC2 RGB texture of two levels, each
 * block one colour of its own (individual mode, both subblocks the same
 * 4-bit colour c, table 0, every pixel index 0: c * 17 + 2, clamped),
 * uploaded with glCompressedTexImage2D, then fetched by texelFetch at 256
 * texels of level 1, half of them in its second row of tiles.  513
 * pixels make level 1 64 blocks across after a padding column of level
 * 0's tiles, where Mesa's layout pads a compressed level's rows by a
 * block (a whole tile here): the Gallium driver's uploads (CPU tiling)
 * and the model's addressing both follow it.
 */
#define ETC_W 513
#define ETC_H 260

static uint32_t etc_colour(int level, int bx, int by)
{
    return hash32(level * 7919 + by * 131 + bx) & 0xfff;
}

static void test_compressed_etc2(void)
{
    static const char src[] =
        "#version 310 es\n"
        "layout(local_size_x = 64) in;\n"
        "uniform highp sampler2D t;\n"
        "layout(std430, binding = 1) readonly buffer In { ivec2 c[]; };\n"
        "layout(std430, binding = 2) writeonly buffer Out { uint o[]; };\n"
        "void main() {\n"
        "    uint i = gl_GlobalInvocationID.x;\n"
        "    vec4 v = texelFetch(t, c[i], 1);\n"
        "    o[i] = uint(round(v.r * 255.0)) | uint(round(v.g * 255.0)) << 8 |\n"
        "           uint(round(v.b * 255.0)) << 16;\n"
        "}\n";
    const char *name = "gl/compressed-etc2-mips";
    static int32_t coords[2 * 256];
    static uint8_t data[129 * 65 * 8];
    GLuint tex, bin, bout;

    if (!wanted(name)) {
        return;
    }
    glGenTextures(1, &tex);
    glBindTexture(GL_TEXTURE_2D, tex);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER,
                    GL_NEAREST_MIPMAP_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 1);
    for (int l = 0; l < 2; l++) {
        int w = ETC_W >> l, h = ETC_H >> l, wb = (w + 3) / 4, hb = (h + 3) / 4;

        for (int by = 0; by < hb; by++) {
            for (int bx = 0; bx < wb; bx++) {
                uint8_t *q = data + 8 * (by * wb + bx);
                uint32_t c = etc_colour(l, bx, by);

                /* R1 R2, G1 G2, B1 B2, tables 0 and diff/flip 0 */
                q[0] = (c & 15) * 17;
                q[1] = ((c >> 4) & 15) * 17;
                q[2] = ((c >> 8) & 15) * 17;
                memset(q + 3, 0, 5);
            }
        }
        glCompressedTexImage2D(GL_TEXTURE_2D, l, GL_COMPRESSED_RGB8_ETC2, w,
                               h, 0, 8 * wb * hb, data);
    }
    for (int i = 0; i < 256; i++) {
        uint32_t r = hash32(i + 991);
        int x = r % (ETC_W >> 1);
        int y = i < 128 ? 128 + (int)((r >> 16) % 2)
                        : (int)((r >> 16) % (ETC_H >> 1));
        uint32_t c = etc_colour(1, x / 4, y / 4), v = 0;

        coords[2 * i] = x;
        coords[2 * i + 1] = y;
        for (int k = 0; k < 3; k++) {
            uint32_t e = ((c >> (4 * k)) & 15) * 17 + 2;

            v |= (e > 255 ? 255 : e) << (8 * k);
        }
        want[i] = v;
    }
    bin = ssbo(1, coords, sizeof(coords));
    bout = ssbo(2, NULL, 256 * 4);
    texture_check(name, src, tex, 4, 1, bout, got, want, 256);
    glDeleteBuffers(1, &bin);
    glDeleteBuffers(1, &bout);
    glDeleteTextures(1, &tex);
}

/*
 * gl/compressed-astc-hdr: vk-ops' sixteen ASTC HDR blocks (astcenc's,
 * vk-ops-astc-hdr.h) as a 16x16 GL_COMPRESSED_RGBA_ASTC_4x4_KHR texture,
 * every texel fetched and compared, as float bits, with astcenc's half
 * floats; skipped without GL_KHR_texture_compression_astc_hdr (with it,
 * GL decodes ASTC in the HDR profile: the Gallium driver's FLOAT formats)
 */
static uint32_t f32_bits(float f)
{
    uint32_t u;

    memcpy(&u, &f, 4);
    return u;
}

static float half_value(unsigned h)
{
    unsigned e = (h >> 10) & 31, m = h & 1023;

    return e ? ldexpf(m + 1024, (int)e - 25) : ldexpf(m, -24);
}

static void test_compressed_astc_hdr(void)
{
    static const char src[] =
        "#version 310 es\n"
        "layout(local_size_x = 64) in;\n"
        "uniform highp sampler2D t;\n"
        "layout(std430, binding = 2) writeonly buffer Out { uint o[]; };\n"
        "void main() {\n"
        "    uint i = gl_GlobalInvocationID.x;\n"
        "    vec4 v = texelFetch(t, ivec2(i % 16u, i / 16u), 0);\n"
        "    for (int c = 0; c < 4; c++) {\n"
        "        o[4u * i + uint(c)] = floatBitsToUint(v[c]);\n"
        "    }\n"
        "}\n";
    const char *name = "gl/compressed-astc-hdr";
    const char *ext = (const char *)glGetString(GL_EXTENSIONS);
    static uint8_t data[16 * 16];
    GLuint tex, bout;

    _Static_assert(sizeof(astc_hdr_blocks) == 16 * sizeof(AstcHdrBlock),
                   "a block for each of the 16 of a 16x16 texture");

    if (!wanted(name)) {
        return;
    }
    if (!ext || !strstr(ext, "GL_KHR_texture_compression_astc_hdr")) {
        tap_skip(name, "no GL_KHR_texture_compression_astc_hdr");
        return;
    }
    for (int b = 0; b < 16; b++) {
        const AstcHdrBlock *k = &astc_hdr_blocks[b];

        memcpy(data + 16 * b, k->block, 16);
        for (int t = 0; t < 16; t++) {
            int x = (b % 4) * 4 + t % 4, y = (b / 4) * 4 + t / 4;

            for (int c = 0; c < 4; c++) {
                want[4 * (y * 16 + x) + c] =
                    f32_bits(half_value(k->texel[t][c]));
            }
        }
    }
    glGenTextures(1, &tex);
    glBindTexture(GL_TEXTURE_2D, tex);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glCompressedTexImage2D(GL_TEXTURE_2D, 0, GL_COMPRESSED_RGBA_ASTC_4x4_KHR,
                           16, 16, 0, sizeof(data), data);
    bout = ssbo(2, NULL, 256 * 16);
    texture_check(name, src, tex, 4, 1, bout, got, want, 256 * 4);
    glDeleteBuffers(1, &bout);
    glDeleteTextures(1, &tex);
}

static int fail_setup(const char *what)
{
    printf("gl-compute: %s (EGL 0x%x)\n", what, eglGetError());
    return 2;
}

int main(int argc, char **argv)
{
    EglCtx e;
    const char *err;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--only") && i + 1 < argc) {
            only = argv[++i];
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    err = egl_open(&e, false, 3, 1);
    if (err) {
        return fail_setup(err);
    }
    printf("gl-compute: %s, %s\n", (const char *)glGetString(GL_RENDERER),
           (const char *)glGetString(GL_VERSION));
    for (uint32_t i = 0; i < N; i++) {
        in[i] = hash32(i + 1);
    }

    test_ssbo();
    test_shared();
    test_atomics();
    test_shared_atomics();
    test_flow();
    test_uniforms();
    test_indirect();
    test_image();
    test_ubo_counter_big();
    test_image_atomics();
    test_texture(false);
    test_texture(true);
    test_compressed_etc2();
    test_compressed_astc_hdr();

    printf("1..%d\n", tap_checks);
    printf("gl-compute: %d of %d checks passed\n", tap_checks - tap_failed,
           tap_checks);
    egl_close(&e);
    return tap_failed ? 1 : 0;
}
