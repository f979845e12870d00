#version 450
// vk-draw's depth/stencil checks: the position from the vertex buffer;
// layer 0 for the fragment shader
layout(location = 0) in vec3 pos;
layout(location = 0) flat out int v_layer;

void main()
{
    v_layer = 0;
    gl_Position = vec4(pos, 1.0);
}
