module noisefloor.dev/experiments/makebuffer

go 1.19
