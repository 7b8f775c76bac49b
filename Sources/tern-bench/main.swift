import WSClient
print("bench")
