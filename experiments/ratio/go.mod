module noisefloor.dev/experiments/ratio

go 1.19
