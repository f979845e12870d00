// vk-ops: divergent control flow: a data-dependent loop (Collatz steps,
// capped), a switch, a nested loop with continue and break
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Out { uint v[]; } o;
layout(std430, set = 0, binding = 1) readonly buffer In { uint v[]; } i;

void main()
{
    uint g = gl_GlobalInvocationID.x;
    uint x = i.v[g], n = x, steps = 0, acc = 0;

    while (n != 1u && steps < 500u) {
        n = (n & 1u) != 0u ? 3u * n + 1u : n >> 1;
        steps++;
    }
    switch (x % 5u) {
    case 0u:
        acc = x * 3u;
        break;
    case 1u:
        acc = x ^ 0x5555u;
        break;
    case 3u:
        acc = ~x;
        break;
    default:
        acc = x + 7u;
        break;
    }
    for (uint a = 0; a < (x & 15u); a++) {
        if ((a & 3u) == 1u) {
            continue;
        }
        for (uint b = a; b < 16u; b++) {
            if (((a * b) & 7u) == 6u) {
                break;
            }
            acc = acc * 33u + b;
        }
    }
    o.v[2 * g] = steps;
    o.v[2 * g + 1] = acc;
}
