/*
 * vk-draw: a Vulkan render pass checked pixel by pixel.  Written from the
 * Vulkan specification.
 *
 * One 128x128 R8G8B8A8_UNORM colour attachment and a D32_SFLOAT depth
 * attachment, drawn with dynamic rendering (Vulkan 1.3): a clear by the
 * load op, vkCmdClearAttachments over a band, a triangle with a colour
 * per vertex, a flat quad, and two quads under VK_COMPARE_OP_LESS (the
 * nearer drawn first); then copied to a buffer and read back.  Each
 * feature is one TAP line ("ok N name" / "not ok N name - why"), judged
 * against values computed here: exact for clears, flat colours and the
 * depth test, within 2/255 where colours are interpolated.  When the
 * loader also lists lavapipe (Mesa's CPU driver), the same frame is drawn
 * there and the images compared ("matches-lavapipe": at most 1% of the
 * pixels may differ by more than 3/255, on edges).
 *
 *   vk-draw [--device honeykrisp|lavapipe]
 *
 * Exit status: 0 all checks passed, 1 some failed, 2 could not run them.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "vk-draw-spv.h"
#include "vk-util.h"

#define SIZE        128
#define TIMEOUT_NS  20000000000ull
#define COLOR_FMT   VK_FORMAT_R8G8B8A8_UNORM
#define DEPTH_FMT   VK_FORMAT_D32_SFLOAT

typedef struct Rgba {
    int c[4];
} Rgba;

typedef uint8_t Image[SIZE][SIZE][4];       /* top row first */

typedef struct Dev {
    VkuDev d;
    char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE + VK_MAX_DRIVER_NAME_SIZE +
              VK_MAX_DRIVER_INFO_SIZE + 8];
} Dev;

static const Rgba background = { { 26, 38, 77, 255 } };
static const Rgba band = { { 230, 230, 230, 255 } };
static const Rgba near_red = { { 255, 0, 0, 255 } };
static const Rgba far_green = { { 0, 255, 0, 255 } };
static const Rgba flat_gold = { { 255, 204, 0, 255 } };

/* Pixel rectangles: x0, y0, x1, y1 (y down, as Vulkan's framebuffer) */
static const int band_rect[4] = { 0, 112, SIZE, SIZE };
static const int near_quad[4] = { 80, 16, 112, 48 };
static const int far_quad[4] = { 88, 24, 120, 56 };
static const int flat_quad[4] = { 80, 72, 120, 100 };
static const float tri_px[3][2] = { { 8, 100 }, { 72, 100 }, { 40, 36 } };
static const Rgba tri_colour[3] = {
    { { 255, 0, 0, 255 } }, { { 0, 255, 0, 255 } }, { { 0, 0, 255, 255 } }
};

/* --- the vertices -------------------------------------------------------- */

#define VTX_FLOATS  7           /* x y z, r g b a */

enum {
    FIRST_TRI = 0,
    FIRST_FLAT = 3,
    FIRST_NEAR = 9,
    FIRST_FAR = 15,
    NUM_VERTICES = 21,
};

static void put_vertex(float *v, float x, float y, float z, const Rgba *c)
{
    v[0] = x / (SIZE / 2) - 1.0f;
    v[1] = y / (SIZE / 2) - 1.0f;
    v[2] = z;
    for (int i = 0; i < 4; i++) {
        v[3 + i] = c->c[i] / 255.0f;
    }
}

static void put_quad(float *v, const int *r, float z, const Rgba *c)
{
    static const int corner[6][2] = {
        { 0, 0 }, { 1, 0 }, { 1, 1 }, { 0, 0 }, { 1, 1 }, { 0, 1 }
    };

    for (int i = 0; i < 6; i++) {
        put_vertex(v + i * VTX_FLOATS, r[corner[i][0] * 2],
                   r[1 + corner[i][1] * 2], z, c);
    }
}

static void make_vertices(float *v)
{
    for (int i = 0; i < 3; i++) {
        put_vertex(v + (FIRST_TRI + i) * VTX_FLOATS, tri_px[i][0],
                   tri_px[i][1], 0.5f, &tri_colour[i]);
    }
    put_quad(v + FIRST_FLAT * VTX_FLOATS, flat_quad, 0.5f, &flat_gold);
    put_quad(v + FIRST_NEAR * VTX_FLOATS, near_quad, 0.25f, &near_red);
    put_quad(v + FIRST_FAR * VTX_FLOATS, far_quad, 0.75f, &far_green);
}

/* --- devices and memory -------------------------------------------------- */

static bool find_device(VkInstance inst, VkDriverId want, Dev *d)
{
    d->d.pdev = vku_find_device(inst, want, 0);
    if (d->d.pdev == VK_NULL_HANDLE) {
        return false;
    }
    vku_device_name(d->d.pdev, d->name, sizeof(d->name));
    return true;
}

static void open_device(Dev *d)
{
    VkPhysicalDeviceVulkan13Features f13 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
        .dynamicRendering = VK_TRUE,
    };

    if (!vku_open(&d->d, d->d.pdev, VK_QUEUE_GRAPHICS_BIT, &f13, 0, NULL)) {
        printf("vk-draw: %s has no graphics queue\n", d->name);
        exit(2);
    }
}

static VkBuffer make_buffer(Dev *d, VkDeviceSize size,
                            VkBufferUsageFlags usage, void **map)
{
    VkDeviceMemory m;

    return vku_buffer(&d->d, size, usage, NULL, &m, map);
}

static VkImageView make_image(Dev *d, VkFormat fmt, VkImageUsageFlags usage,
                              VkImageAspectFlags aspect, VkImage *img)
{
    VkDeviceMemory m;
    VkImageView view;

    *img = vku_image(&d->d, fmt, SIZE, SIZE, usage, aspect,
                     VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &m, &view);
    return view;
}

/* --- the pipeline -------------------------------------------------------- */

static VkPipeline make_pipeline(Dev *d, VkPipelineLayout layout)
{
    VkFormat color_fmt = COLOR_FMT;
    VkPipelineRenderingCreateInfo rci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO,
        .colorAttachmentCount = 1,
        .pColorAttachmentFormats = &color_fmt,
        .depthAttachmentFormat = DEPTH_FMT,
    };
    VkPipelineShaderStageCreateInfo stages[2] = {
        {
            .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
            .stage = VK_SHADER_STAGE_VERTEX_BIT,
            .module = vku_module(&d->d, vk_draw_vert_spv,
                                 sizeof(vk_draw_vert_spv)),
            .pName = "main",
        }, {
            .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
            .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
            .module = vku_module(&d->d, vk_draw_frag_spv,
                                 sizeof(vk_draw_frag_spv)),
            .pName = "main",
        },
    };
    VkVertexInputBindingDescription vb = {
        .stride = VTX_FLOATS * sizeof(float),
    };
    VkVertexInputAttributeDescription va[2] = {
        { .location = 0, .format = VK_FORMAT_R32G32B32_SFLOAT },
        { .location = 1, .format = VK_FORMAT_R32G32B32A32_SFLOAT,
          .offset = 3 * sizeof(float) },
    };
    VkPipelineVertexInputStateCreateInfo vis = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
        .vertexBindingDescriptionCount = 1,
        .pVertexBindingDescriptions = &vb,
        .vertexAttributeDescriptionCount = 2,
        .pVertexAttributeDescriptions = va,
    };
    VkPipelineInputAssemblyStateCreateInfo ias = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
        .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
    };
    VkViewport vp = { 0, 0, SIZE, SIZE, 0.0f, 1.0f };
    VkRect2D sc = { { 0, 0 }, { SIZE, SIZE } };
    VkPipelineViewportStateCreateInfo vps = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
        .viewportCount = 1,
        .pViewports = &vp,
        .scissorCount = 1,
        .pScissors = &sc,
    };
    VkPipelineRasterizationStateCreateInfo rs = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
        .polygonMode = VK_POLYGON_MODE_FILL,
        .cullMode = VK_CULL_MODE_NONE,
        .lineWidth = 1.0f,
    };
    VkPipelineMultisampleStateCreateInfo ms = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
        .rasterizationSamples = VK_SAMPLE_COUNT_1_BIT,
    };
    VkPipelineDepthStencilStateCreateInfo ds = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
        .depthTestEnable = VK_TRUE,
        .depthWriteEnable = VK_TRUE,
        .depthCompareOp = VK_COMPARE_OP_LESS,
    };
    VkPipelineColorBlendAttachmentState cba = {
        .colorWriteMask = 0xf,
    };
    VkPipelineColorBlendStateCreateInfo cbs = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
        .attachmentCount = 1,
        .pAttachments = &cba,
    };
    VkGraphicsPipelineCreateInfo gpci = {
        .sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
        .pNext = &rci,
        .stageCount = 2,
        .pStages = stages,
        .pVertexInputState = &vis,
        .pInputAssemblyState = &ias,
        .pViewportState = &vps,
        .pRasterizationState = &rs,
        .pMultisampleState = &ms,
        .pDepthStencilState = &ds,
        .pColorBlendState = &cbs,
        .layout = layout,
    };
    VkPipeline pipe;

    CHECK_VK(vkCreateGraphicsPipelines(d->d.dev, VK_NULL_HANDLE, 1, &gpci,
                                       NULL, &pipe));
    return pipe;
}

/* --- one frame ----------------------------------------------------------- */

static void record(VkCommandBuffer cmd, VkPipeline pipe, VkBuffer vbuf,
                   VkImage color, VkImageView color_view, VkImage depth,
                   VkImageView depth_view, VkBuffer out)
{
    VkRenderingAttachmentInfo ca = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
        .imageView = color_view,
        .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
        .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
        .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
    };
    VkRenderingAttachmentInfo da = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
        .imageView = depth_view,
        .imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
        .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
        .storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
        .clearValue.depthStencil = { 1.0f, 0 },
    };
    VkRenderingInfo ri = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
        .renderArea = { { 0, 0 }, { SIZE, SIZE } },
        .layerCount = 1,
        .colorAttachmentCount = 1,
        .pColorAttachments = &ca,
        .pDepthAttachment = &da,
    };
    VkClearAttachment clear = {
        .aspectMask = VK_IMAGE_ASPECT_COLOR_BIT,
    };
    VkClearRect rect = {
        .rect = {
            { band_rect[0], band_rect[1] },
            { band_rect[2] - band_rect[0], band_rect[3] - band_rect[1] },
        },
        .layerCount = 1,
    };
    VkBufferImageCopy copy = {
        .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
        .imageExtent = { SIZE, SIZE, 1 },
    };
    VkDeviceSize zero = 0;

    for (int i = 0; i < 4; i++) {
        ca.clearValue.color.float32[i] = background.c[i] / 255.0f;
        clear.clearValue.color.float32[i] = band.c[i] / 255.0f;
    }
    vku_image_barrier(cmd, color, VK_IMAGE_ASPECT_COLOR_BIT,
                      VK_IMAGE_LAYOUT_UNDEFINED,
                      VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, 0,
                      VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                      VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                      VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT);
    vku_image_barrier(cmd, depth, VK_IMAGE_ASPECT_DEPTH_BIT,
                      VK_IMAGE_LAYOUT_UNDEFINED,
                      VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL, 0,
                      VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
                      VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                      VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT);
    vkCmdBeginRendering(cmd, &ri);
    vkCmdClearAttachments(cmd, 1, &clear, 1, &rect);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipe);
    vkCmdBindVertexBuffers(cmd, 0, 1, &vbuf, &zero);
    vkCmdDraw(cmd, 3, 1, FIRST_TRI, 0);
    vkCmdDraw(cmd, 6, 1, FIRST_FLAT, 0);
    vkCmdDraw(cmd, 6, 1, FIRST_NEAR, 0);
    vkCmdDraw(cmd, 6, 1, FIRST_FAR, 0);
    vkCmdEndRendering(cmd);
    vku_image_barrier(cmd, color, VK_IMAGE_ASPECT_COLOR_BIT,
                      VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                      VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                      VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                      VK_ACCESS_TRANSFER_READ_BIT,
                      VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                      VK_PIPELINE_STAGE_TRANSFER_BIT);
    vkCmdCopyImageToBuffer(cmd, color, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                           out, 1, &copy);
}

/* Draws the frame on @d (opened here, closed after) into @img */
static void draw(Dev *d, Image img)
{
    static float verts[NUM_VERTICES * VTX_FLOATS];
    VkPipelineLayoutCreateInfo plci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
    };
    VkCommandPoolCreateInfo cpci = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
    };
    VkImage color, depth;
    VkImageView color_view, depth_view;
    VkPipelineLayout layout;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkBuffer vbuf, out;
    void *vmap, *omap;

    open_device(d);
    make_vertices(verts);
    vbuf = make_buffer(d, sizeof(verts), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT,
                       &vmap);
    memcpy(vmap, verts, sizeof(verts));
    out = make_buffer(d, sizeof(Image), VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                      &omap);
    memset(omap, 0, sizeof(Image));
    color_view = make_image(d, COLOR_FMT,
                            VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                            VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                            VK_IMAGE_ASPECT_COLOR_BIT, &color);
    depth_view = make_image(d, DEPTH_FMT,
                            VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                            VK_IMAGE_ASPECT_DEPTH_BIT, &depth);
    CHECK_VK(vkCreatePipelineLayout(d->d.dev, &plci, NULL, &layout));
    cpci.queueFamilyIndex = d->d.family;
    CHECK_VK(vkCreateCommandPool(d->d.dev, &cpci, NULL, &pool));
    cmd = vku_begin(&d->d, pool, 0);
    record(cmd, make_pipeline(d, layout), vbuf, color, color_view, depth,
           depth_view, out);
    CHECK_VK(vku_submit_wait(&d->d, VK_NULL_HANDLE, cmd, TIMEOUT_NS));
    memcpy(img, omap, sizeof(Image));
    /* the process ends soon: the device goes with everything it holds */
    vkDeviceWaitIdle(d->d.dev);
    vkDestroyDevice(d->d.dev, NULL);
}

/* --- the checks ---------------------------------------------------------- */

typedef struct Probe {
    int x, y;
    const Rgba *want;
} Probe;

static void check_probes(Image img, const char *name, const Probe *p, int n,
                         int tol)
{
    char why[160] = "";
    bool ok = true;

    for (int i = 0; i < n && ok; i++) {
        const uint8_t *px = img[p[i].y][p[i].x];

        for (int c = 0; c < 4 && ok; c++) {
            ok = abs(px[c] - p[i].want->c[c]) <= tol;
        }
        if (!ok) {
            snprintf(why, sizeof(why), "pixel (%d,%d) is %02x%02x%02x%02x, "
                     "expected %02x%02x%02x%02x (+-%d)", p[i].x, p[i].y,
                     px[0], px[1], px[2], px[3], p[i].want->c[0],
                     p[i].want->c[1], p[i].want->c[2], p[i].want->c[3], tol);
        }
    }
    tap_report(name, ok, why);
}

/* The smooth triangle's colour at a pixel centre, from barycentrics */
static Rgba smooth_at(float x, float y)
{
    const float (*t)[2] = tri_px;
    float area = (t[1][0] - t[0][0]) * (t[2][1] - t[0][1]) -
                 (t[2][0] - t[0][0]) * (t[1][1] - t[0][1]);
    float w1 = ((x - t[0][0]) * (t[2][1] - t[0][1]) -
                (t[2][0] - t[0][0]) * (y - t[0][1])) / area;
    float w2 = ((t[1][0] - t[0][0]) * (y - t[0][1]) -
                (x - t[0][0]) * (t[1][1] - t[0][1])) / area;
    float w[3] = { 1.0f - w1 - w2, w1, w2 };
    Rgba c = { { 0, 0, 0, 255 } };

    for (int i = 0; i < 3; i++) {
        float v = 0;

        for (int k = 0; k < 3; k++) {
            v += w[k] * tri_colour[k].c[i];
        }
        c.c[i] = (int)(v + 0.5f);
    }
    return c;
}

static void check_frame(Image img)
{
    static const int at[3][2] = { { 40, 80 }, { 20, 96 }, { 60, 96 } };
    Rgba smooth[3];
    Probe clear[] = {
        { 0, 0, &background }, { SIZE - 1, 111, &background },
        { 70, 20, &background },
    };
    Probe band_p[] = {
        { 0, 112, &band }, { SIZE - 1, SIZE - 1, &band }, { 60, 120, &band },
    };
    Probe flat[] = {
        { 80, 72, &flat_gold }, { 119, 99, &flat_gold },
        { 100, 85, &flat_gold }, { 79, 85, &background },
    };
    Probe depth[] = {
        { 84, 20, &near_red }, { 100, 40, &near_red }, { 111, 47, &near_red },
        { 116, 52, &far_green }, { 92, 52, &far_green },
    };
    Probe smooth_p[3];

    check_probes(img, "clear-load-op", clear, 3, 0);
    check_probes(img, "clear-attachments", band_p, 3, 0);
    for (int i = 0; i < 3; i++) {
        smooth[i] = smooth_at(at[i][0] + 0.5f, at[i][1] + 0.5f);
        smooth_p[i] = (Probe){ at[i][0], at[i][1], &smooth[i] };
    }
    check_probes(img, "smooth-triangle", smooth_p, 3, 2);
    check_probes(img, "flat-quad", flat, 4, 0);
    check_probes(img, "depth-test", depth, 5, 0);
}

static void compare(Image img, Image ref)
{
    int differ = 0, worst = 0;
    char why[160];

    for (int y = 0; y < SIZE; y++) {
        for (int x = 0; x < SIZE; x++) {
            int d = 0;

            for (int c = 0; c < 4; c++) {
                int e = abs(img[y][x][c] - ref[y][x][c]);

                d = e > d ? e : d;
            }
            differ += d > 3;
            worst = d > worst ? d : worst;
        }
    }
    snprintf(why, sizeof(why), "%d of %d pixels differ by more than 3 "
             "(at most %d)", differ, SIZE * SIZE, worst);
    printf("vk-draw: against lavapipe: %s\n", why);
    tap_report("matches-lavapipe", differ <= SIZE * SIZE / 100, why);
}

int main(int argc, char **argv)
{
    static Image img, ref;
    VkDriverId want = VK_DRIVER_ID_MESA_HONEYKRISP;
    VkInstance inst;
    Dev d = { 0 }, lvp = { 0 };

    if (argc == 3 && !strcmp(argv[1], "--device") &&
        !strcmp(argv[2], "lavapipe")) {
        want = VK_DRIVER_ID_MESA_LLVMPIPE;
    } else if (argc != 1 && !(argc == 3 && !strcmp(argv[1], "--device") &&
                              !strcmp(argv[2], "honeykrisp"))) {
        printf("usage: vk-draw [--device honeykrisp|lavapipe]\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    vku_prog = "vk-draw";
    inst = vku_instance("vk-draw", VK_API_VERSION_1_3);
    if (!find_device(inst, want, &d)) {
        printf("vk-draw: no device of that driver\n");
        return 2;
    }
    printf("vk-draw: %s\n", d.name);
    draw(&d, img);
    check_frame(img);
    if (want != VK_DRIVER_ID_MESA_LLVMPIPE &&
        find_device(inst, VK_DRIVER_ID_MESA_LLVMPIPE, &lvp)) {
        draw(&lvp, ref);
        compare(img, ref);
    }
    printf("1..%d\nvk-draw: %d of %d checks passed\n", tap_checks,
           tap_checks - tap_failed, tap_checks);
    vkDestroyInstance(inst, NULL);
    return tap_failed ? 1 : 0;
}
