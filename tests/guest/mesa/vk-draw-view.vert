#version 450
// vk-draw's multiview check: each view's quad 16 pixels (0.5) further
// right than the last one's
#extension GL_EXT_multiview : require
layout(location = 0) in vec3 pos;
layout(location = 0) flat out int v_layer;

void main()
{
    v_layer = int(gl_ViewIndex);
    gl_Position = vec4(pos.x + 0.5 * float(gl_ViewIndex), pos.yz, 1.0);
}
