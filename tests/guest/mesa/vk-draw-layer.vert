#version 450
// vk-draw's layered check: the instance index picks the layer
#extension GL_ARB_shader_viewport_layer_array : require
layout(location = 0) in vec3 pos;
layout(location = 0) flat out int v_layer;

void main()
{
    v_layer = gl_InstanceIndex;
    gl_Layer = gl_InstanceIndex;
    gl_Position = vec4(pos, 1.0);
}
