// vk-ops: each invocation fetches texel (x, y) of level l of a mipmapped
// texture, (x, y, l) from in.v[id], with texelFetch (binding 5)
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Out { vec4 v[]; } o;
layout(std430, set = 0, binding = 1) buffer In { ivec4 v[]; } i;
layout(set = 0, binding = 5) uniform sampler2D tex;

void main()
{
    uint id = gl_GlobalInvocationID.x;
    ivec4 p = i.v[id];

    o.v[id] = texelFetch(tex, p.xy, p.z);
}
