module noisefloor.dev/tests/hog

go 1.19
